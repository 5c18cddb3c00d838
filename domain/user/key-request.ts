import { fieldError, type FieldError } from '../errors.js'
import { isScope, SCOPES } from '../scopes.js'
import { integerIn, isPlainObject, string, unknownFields, type Errors } from '../validation.js'

const KNOWN = new Set(['name', 'scopes', 'expires_in_seconds'])

/** Bounds of `expires_in_seconds`: a minute to a year. */
export const ACCOUNT_KEY_MIN_LIFETIME_SECONDS = 60
export const ACCOUNT_KEY_MAX_LIFETIME_SECONDS = 365 * 86_400

export interface AccountKeyRequest {
  readonly name: string
  /** Every scope when absent. */
  readonly scopes: readonly string[]
  /** The key stops working this many seconds after its creation; absent: it never expires. */
  readonly expiresInSeconds: number | null
}

/** POST /api-keys body `{name, scopes?, expires_in_seconds?}`: the key gets the default limits of the user's organization. */
export const checkAccountKeyRequest = (input: unknown): { ok: true; value: AccountKeyRequest } | { ok: false; errors: FieldError[] } => {
  const errors: Errors = []
  const body = isPlainObject(input) ? input : {}
  unknownFields(errors, '', body, KNOWN)
  const name = body.name === undefined
    ? (errors.push(fieldError('name', 'missing_name', 'name is required')), undefined)
    : string(errors, 'name', 'invalid_name', body.name, 100)
  if (name !== undefined && name.trim() === '') errors.push(fieldError('name', 'invalid_name', 'name must not be empty'))
  const scopes = body.scopes === undefined ? SCOPES : Array.isArray(body.scopes) && body.scopes.length > 0 && body.scopes.every(isScope)
    ? [...new Set(body.scopes as string[])]
    : (errors.push(fieldError('scopes', 'invalid_scopes', `scopes must be a non-empty list of: ${SCOPES.join(', ')}`)), [])
  const lifetime = integerIn(errors, 'expires_in_seconds', 'invalid_expires_in_seconds', body.expires_in_seconds, ACCOUNT_KEY_MIN_LIFETIME_SECONDS, ACCOUNT_KEY_MAX_LIFETIME_SECONDS)
  return errors.length > 0 || name === undefined ? { ok: false, errors } : { ok: true, value: { name: name.trim(), scopes, expiresInSeconds: lifetime ?? null } }
}
