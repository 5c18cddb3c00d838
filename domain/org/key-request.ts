import { fieldError, type FieldError } from '../errors.js'
import { isValidIpRule } from '../ip-allowlist.js'
import { isScope, SCOPES } from '../scopes.js'
import { integerIn, isPlainObject, oneOf, string, unknownFields, type Errors } from '../validation.js'
import type { KeyLimits } from './events.js'

/** A key as asked for; omitted limits and expiry are absent here and take their defaults in key-bounds.ts. */
export interface KeyRequest {
  readonly name: string
  readonly scopes: readonly string[]
  readonly limits: Partial<KeyLimits>
  readonly expires_at?: string | null
}

const KNOWN = new Set(['name', 'scopes', 'rate_limit_rpm', 'daily_quota', 'max_concurrent_jobs', 'enforcement_mode', 'ip_allowlist', 'expires_at'])

export const validateIpList = (errors: Errors, field: string, v: unknown): string[] | undefined => {
  if (v === undefined) return undefined
  if (!Array.isArray(v) || v.length > 100 || v.some((r) => typeof r !== 'string' || !isValidIpRule(r))) {
    errors.push(fieldError(field, `invalid_${field}`, `${field} must be a list of at most 100 IP addresses or CIDR ranges`))
    return undefined
  }
  return v as string[]
}

/** POST /v1/keys body, checked field by field (422 codes); defaults are chosen by `boundKeyRequest`, which knows the creating key. */
export const validateKeyRequest = (input: unknown, now: Date): { ok: true; value: KeyRequest } | { ok: false; errors: FieldError[] } => {
  const errors: Errors = []
  if (!isPlainObject(input)) return { ok: false, errors: [fieldError('', 'invalid_body', 'the body must be a JSON object')] }
  unknownFields(errors, '', input, KNOWN)
  const name = input.name === undefined
    ? (errors.push(fieldError('name', 'missing_name', 'name is required')), undefined)
    : string(errors, 'name', 'invalid_name', input.name, 100)
  if (name !== undefined && name.trim() === '') errors.push(fieldError('name', 'invalid_name', 'name must not be empty'))
  let scopes: string[] = []
  if (input.scopes === undefined) errors.push(fieldError('scopes', 'missing_scopes', 'scopes is required'))
  else if (!Array.isArray(input.scopes) || input.scopes.length === 0 || input.scopes.some((s) => !isScope(s))) {
    errors.push(fieldError('scopes', 'invalid_scopes', `scopes must be a non-empty list of: ${SCOPES.join(', ')}`))
  } else scopes = [...new Set(input.scopes as string[])]
  const rpm = integerIn(errors, 'rate_limit_rpm', 'invalid_rate_limit_rpm', input.rate_limit_rpm, 1, 100_000)
  const daily = integerIn(errors, 'daily_quota', 'invalid_daily_quota', input.daily_quota, 1, 100_000_000)
  const concurrent = input.max_concurrent_jobs === null ? undefined : integerIn(errors, 'max_concurrent_jobs', 'invalid_max_concurrent_jobs', input.max_concurrent_jobs, 1, 10_000)
  const mode = oneOf(errors, 'enforcement_mode', 'invalid_enforcement_mode', input.enforcement_mode, ['block', 'observe'] as const)
  const ips = validateIpList(errors, 'ip_allowlist', input.ip_allowlist)
  let expiresAt: string | null | undefined = input.expires_at === null ? null : undefined
  if (input.expires_at !== undefined && input.expires_at !== null) {
    const t = typeof input.expires_at === 'string' ? Date.parse(input.expires_at) : NaN
    if (Number.isNaN(t) || t <= now.getTime()) errors.push(fieldError('expires_at', 'invalid_expires_at', 'expires_at must be an ISO 8601 time in the future'))
    else expiresAt = new Date(t).toISOString()
  }
  if (errors.length > 0 || name === undefined) return { ok: false, errors }
  const limits: Partial<KeyLimits> = {
    ...(rpm !== undefined ? { rate_limit_rpm: rpm } : {}),
    ...(daily !== undefined ? { daily_quota: daily } : {}),
    ...(input.max_concurrent_jobs === null ? { max_concurrent_jobs: null } : concurrent !== undefined ? { max_concurrent_jobs: concurrent } : {}),
    ...(mode !== undefined ? { enforcement_mode: mode } : {}),
    ...(ips !== undefined ? { ip_allowlist: ips } : {}),
  }
  return { ok: true, value: { name: name.trim(), scopes, limits, ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}) } }
}
