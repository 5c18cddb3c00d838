import { fieldError, type FieldError } from '../errors.js'
import { isPlainObject, string, unknownFields, type Errors } from '../validation.js'

const KNOWN = new Set(['name'])

/** POST /api-keys body `{name}`: the key gets every scope and the default limits of the user's organization. */
export const checkAccountKeyRequest = (input: unknown): { ok: true; name: string } | { ok: false; errors: FieldError[] } => {
  const errors: Errors = []
  const body = isPlainObject(input) ? input : {}
  unknownFields(errors, '', body, KNOWN)
  const name = body.name === undefined
    ? (errors.push(fieldError('name', 'missing_name', 'name is required')), undefined)
    : string(errors, 'name', 'invalid_name', body.name, 100)
  if (name !== undefined && name.trim() === '') errors.push(fieldError('name', 'invalid_name', 'name must not be empty'))
  return errors.length > 0 || name === undefined ? { ok: false, errors } : { ok: true, name: name.trim() }
}
