import { checkTargetUrl, type Allowlist } from '../address-policy.js'
import { fieldError, type FieldError } from '../errors.js'
import { SCRAPE_BACKENDS, type ScrapeBackend } from '../scrape/events.js'
import { isPlainObject, oneOf, text, unknownFields, type Errors } from '../validation.js'
import { MONITOR_STATUSES, RULE_TYPES, type ContentMonitorStatus, type Rule } from './events.js'
import { MAX_FREQUENCY_MINUTES, MAX_MONITOR_NAME_LENGTH, MAX_NEEDLE_LENGTH, MIN_FREQUENCY_MINUTES } from './limits.js'

export interface ContentMonitorFields {
  readonly name?: string
  readonly url: string
  readonly backend: ScrapeBackend
  readonly frequencyMinutes: number
  readonly rule: Rule
}

export interface ContentMonitorChanges {
  readonly name?: string
  readonly frequencyMinutes?: number
  readonly status?: ContentMonitorStatus
  readonly rule?: Rule
}

type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: readonly FieldError[] }

const frequency = (errors: Errors, v: unknown): number | undefined => {
  if (typeof v === 'number' && Number.isInteger(v) && v >= MIN_FREQUENCY_MINUTES && v <= MAX_FREQUENCY_MINUTES) return v
  errors.push(fieldError('frequencyMinutes', 'invalid_frequencyMinutes', `frequencyMinutes must be an integer from ${MIN_FREQUENCY_MINUTES} to ${MAX_FREQUENCY_MINUTES}`))
  return undefined
}

const rule = (errors: Errors, v: unknown): Rule | undefined => {
  if (!isPlainObject(v)) { errors.push(fieldError('rule', 'invalid_rule', 'rule must be an object {type, config}')); return undefined }
  unknownFields(errors, 'rule.', v, new Set(['type', 'config']))
  const type = v.type === undefined
    ? (errors.push(fieldError('rule.type', 'missing_rule_type', 'rule.type is required')), undefined)
    : oneOf(errors, 'rule.type', 'invalid_rule_type', v.type, RULE_TYPES)
  const config = v.config ?? {}
  if (!isPlainObject(config)) { errors.push(fieldError('rule.config', 'invalid_rule_config', 'rule.config must be an object')); return undefined }
  if (type === undefined) return undefined
  if (type === 'any_change' || type === 'status_code_change') {
    unknownFields(errors, 'rule.config.', config, new Set())
    return { type, config: {} }
  }
  unknownFields(errors, 'rule.config.', config, new Set(['needle', 'caseSensitive']))
  let needle: string | undefined
  if (config.needle === undefined) errors.push(fieldError('rule.config.needle', 'missing_needle', `rule.config.needle is required for ${type}`))
  else if (typeof config.needle === 'string' && config.needle.length > MAX_NEEDLE_LENGTH) {
    errors.push(fieldError('rule.config.needle', 'needle_too_long', `rule.config.needle must be at most ${MAX_NEEDLE_LENGTH} characters`))
  } else needle = text(errors, 'rule.config.needle', 'invalid_needle', config.needle, MAX_NEEDLE_LENGTH)
  if (config.caseSensitive !== undefined && typeof config.caseSensitive !== 'boolean') {
    errors.push(fieldError('rule.config.caseSensitive', 'invalid_caseSensitive', 'rule.config.caseSensitive must be a boolean'))
  }
  if (needle === undefined) return undefined
  return { type, config: { needle, caseSensitive: config.caseSensitive === true } }
}

const name = (errors: Errors, v: unknown) => text(errors, 'name', 'invalid_name', v, MAX_MONITOR_NAME_LENGTH)

/** POST /content-monitors: `{name?, url, backend, frequencyMinutes, rule}` (SPEC 2.5); every failing field is reported. */
export const validateContentMonitor = (input: unknown, allowlist: Allowlist): Result<ContentMonitorFields> => {
  const errors: Errors = []
  if (!isPlainObject(input)) return { ok: false, errors: [fieldError('', 'invalid_body', 'the body must be a JSON object')] }
  unknownFields(errors, '', input, new Set(['name', 'url', 'backend', 'frequencyMinutes', 'rule']))
  const named = input.name === undefined ? undefined : name(errors, input.name)
  let url: string | undefined
  if (input.url === undefined) errors.push(fieldError('url', 'missing_url', 'url is required'))
  else if (typeof input.url !== 'string' || input.url.length > 8192) errors.push(fieldError('url', 'invalid_url', 'url must be an absolute http or https URL'))
  else {
    const checked = checkTargetUrl(input.url, allowlist)
    if (checked.ok) url = checked.url.href
    else errors.push(fieldError('url', checked.code.replace('target_url', 'url'), checked.message.replace('target_url', 'url')))
  }
  const backend = input.backend === undefined
    ? (errors.push(fieldError('backend', 'missing_backend', 'backend is required')), undefined)
    : oneOf(errors, 'backend', 'invalid_backend', input.backend, SCRAPE_BACKENDS)
  const minutes = input.frequencyMinutes === undefined
    ? (errors.push(fieldError('frequencyMinutes', 'missing_frequencyMinutes', 'frequencyMinutes is required')), undefined)
    : frequency(errors, input.frequencyMinutes)
  const checkedRule = input.rule === undefined ? (errors.push(fieldError('rule', 'missing_rule', 'rule is required')), undefined) : rule(errors, input.rule)
  if (errors.length > 0 || url === undefined || backend === undefined || minutes === undefined || checkedRule === undefined) return { ok: false, errors }
  return { ok: true, value: { ...(named !== undefined ? { name: named } : {}), url, backend, frequencyMinutes: minutes, rule: checkedRule } }
}

/** PATCH /content-monitors/{id}: any of `name`, `frequencyMinutes`, `status`, `rule`. */
export const validateContentMonitorChanges = (input: unknown): Result<ContentMonitorChanges> => {
  const errors: Errors = []
  if (!isPlainObject(input)) return { ok: false, errors: [fieldError('', 'invalid_body', 'the body must be a JSON object')] }
  unknownFields(errors, '', input, new Set(['name', 'frequencyMinutes', 'status', 'rule']))
  const changes: { -readonly [K in keyof ContentMonitorChanges]: ContentMonitorChanges[K] } = {}
  if (input.name !== undefined) changes.name = name(errors, input.name)
  if (input.frequencyMinutes !== undefined) changes.frequencyMinutes = frequency(errors, input.frequencyMinutes)
  if (input.status !== undefined) changes.status = oneOf(errors, 'status', 'invalid_status', input.status, MONITOR_STATUSES)
  if (input.rule !== undefined) changes.rule = rule(errors, input.rule)
  if (errors.length > 0) return { ok: false, errors }
  return { ok: true, value: changes }
}
