import { checkTargetUrl, type Allowlist } from '../address-policy.js'
import { fieldError, type FieldError } from '../errors.js'
import { isPlainObject, text, unknownFields, type Errors } from '../validation.js'
import type { EndpointChanges } from './endpoint-decider.js'
import { SUBSCRIBABLE_KINDS } from './kinds.js'

export const MAX_WEBHOOK_URL_LENGTH = 2048
export const MAX_DESCRIPTION_LENGTH = 500

export interface EndpointRequest {
  readonly url: string
  readonly enabled_events: readonly string[]
  readonly description: string | null
}

export type Checked<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly missing: readonly FieldError[]; readonly errors: readonly FieldError[] }

/** The URL passes the same SSRF rules as job targets (the DNS check follows in the command, the gateway checks every delivery). */
const url = (errors: Errors, v: unknown, allowlist: Allowlist): string | undefined => {
  if (typeof v !== 'string' || v.length > MAX_WEBHOOK_URL_LENGTH) {
    errors.push(fieldError('url', 'invalid_url', `url must be an absolute http or https URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters`))
    return undefined
  }
  const checked = checkTargetUrl(v, allowlist)
  if (checked.ok) return checked.url.href
  const code = checked.code === 'unsafe_target_url' ? 'unsafe_url' : 'invalid_url'
  errors.push(fieldError('url', code, checked.message.replace(/^target_url/, 'url')))
  return undefined
}

const kinds = (errors: Errors, v: unknown): string[] | undefined => {
  if (!Array.isArray(v) || v.length === 0 || v.some((kind) => !(SUBSCRIBABLE_KINDS as readonly unknown[]).includes(kind))) {
    errors.push(fieldError('enabled_events', 'invalid_enabled_events', `enabled_events must be a non-empty list of: ${SUBSCRIBABLE_KINDS.join(', ')}`))
    return undefined
  }
  return [...new Set(v as string[])]
}

const description = (errors: Errors, v: unknown): string | null | undefined =>
  v === null ? null : text(errors, 'description', 'invalid_description', v, MAX_DESCRIPTION_LENGTH)

const CREATE_FIELDS = new Set(['url', 'enabled_events', 'description'])
const UPDATE_FIELDS = new Set(['url', 'enabled_events', 'description', 'enabled'])

/** POST /v1/webhook-endpoints: `url` and `enabled_events` are required (400 when absent), the rest 422 per field. */
export const validateEndpointRequest = (input: unknown, allowlist: Allowlist): Checked<EndpointRequest> => {
  if (!isPlainObject(input)) return { ok: false, missing: [], errors: [fieldError('', 'invalid_body', 'the body must be a JSON object')] }
  const missing = (['url', 'enabled_events'] as const).filter((field) => input[field] === undefined)
    .map((field) => fieldError(field, `missing_${field}`, `${field} is required`))
  const errors: Errors = []
  unknownFields(errors, '', input, CREATE_FIELDS)
  const checkedUrl = input.url === undefined ? undefined : url(errors, input.url, allowlist)
  const checkedKinds = input.enabled_events === undefined ? undefined : kinds(errors, input.enabled_events)
  const checkedDescription = input.description === undefined ? null : description(errors, input.description)
  if (missing.length > 0 || errors.length > 0 || checkedUrl === undefined || checkedKinds === undefined || checkedDescription === undefined) {
    return { ok: false, missing, errors }
  }
  return { ok: true, value: { url: checkedUrl, enabled_events: checkedKinds, description: checkedDescription } }
}

/** PATCH /v1/webhook-endpoints/{id}: any of `url`, `enabled_events`, `description`, `enabled`. */
export const validateEndpointChanges = (input: unknown, allowlist: Allowlist): Checked<EndpointChanges> => {
  if (!isPlainObject(input)) return { ok: false, missing: [], errors: [fieldError('', 'invalid_body', 'the body must be a JSON object')] }
  const errors: Errors = []
  unknownFields(errors, '', input, UPDATE_FIELDS)
  const changes: { -readonly [K in keyof EndpointChanges]: EndpointChanges[K] } = {}
  if (input.url !== undefined) changes.url = url(errors, input.url, allowlist)
  if (input.enabled_events !== undefined) changes.enabled_events = kinds(errors, input.enabled_events)
  if (input.description !== undefined) changes.description = description(errors, input.description)
  if (input.enabled !== undefined) {
    if (typeof input.enabled === 'boolean') changes.enabled = input.enabled
    else errors.push(fieldError('enabled', 'invalid_enabled', 'enabled must be true or false'))
  }
  return errors.length > 0 ? { ok: false, missing: [], errors } : { ok: true, value: changes }
}
