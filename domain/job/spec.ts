import { fieldError, type FieldError } from '../errors.js'
import { checkTargetUrl, type Allowlist } from '../address-policy.js'
import { validateExtraction, type ExtractionSpec } from '../extraction.js'
import {
  boolean, headerMap, integerIn, isCleanText, isHeaderValue, isPlainObject, oneOf, string, stringList, text, unknownFields, type Errors,
} from '../validation.js'
import { optionsOfFormats, validateFormats } from './formats.js'
import type * as Schemas from './spec-schema.js'

export const JOB_TYPES = ['light', 'standard', 'stealth'] as const
export type JobType = (typeof JOB_TYPES)[number]
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const
export type HttpMethod = (typeof HTTP_METHODS)[number]
export const WAIT_UNTIL = ['load', 'domcontentloaded', 'networkidle', 'commit'] as const
export const OS_NAMES = ['windows', 'macos', 'linux'] as const
export const BROWSER_EXTENSIONS = ['ublock', 'isdcac'] as const
export const ACTION_TYPES = ['click', 'fill', 'scroll', 'wait'] as const

export const DEFAULT_TIMEOUT_MS = 30_000
export const DEFAULT_NAVIGATION_TIMEOUT_MS = 30_000
export const DEFAULT_MAX_REDIRECTS = 10

export type RetryPolicy = typeof Schemas.RetryPolicy.Type
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  max_attempts: 1,
  retry_on_status: [408, 425, 429, 500, 502, 503, 504],
  retry_methods: ['GET', 'HEAD', 'PUT', 'DELETE'],
}

export type Action = typeof Schemas.Action.Type

export type ArtifactOptions = typeof Schemas.ArtifactOptions.Type
/** Page views every tier makes from its document (the light tier from its HTML response, in a worker). */
const PAGE_VIEW_OPTIONS = ['include_reader', 'include_links', 'include_text', 'include_page_metadata'] as const
const BROWSER_ARTIFACT_OPTIONS = [
  'include_screenshot', 'full_page_screenshot', 'include_pdf', 'include_har',
  'include_console', 'block_images', 'block_styles', 'block_media', 'block_fonts', 'no_scroll',
] as const

export type ProxySpec = typeof Schemas.ProxySpec.Type

/** A validated, normalized job submission: every default applied. Its structure is the schema of spec-schema.ts. */
export type JobSpec = typeof Schemas.JobSpec.Type

const CORE_FIELDS = ['job_type', 'target_url', 'timeout_ms', 'tags', 'idempotency_token', 'formats', 'artifact_options', 'extraction', 'actions', 'headers', 'user_agent']
const LIGHT_ONLY = ['method', 'body', 'follow_redirects', 'max_redirects', 'retry_policy']
const BROWSER_ONLY = ['headless', 'browser', 'wait_until', 'navigation_timeout_ms']
const STANDARD_ONLY = ['viewport', 'locale', 'timezone_id']
const STEALTH_ONLY = ['os_name', 'browser_extensions', 'proxy']
/** Every top-level field of a job request (the OpenAPI body schema is checked against it). */
export const JOB_REQUEST_FIELDS: ReadonlySet<string> = new Set([...CORE_FIELDS, ...LIGHT_ONLY, ...BROWSER_ONLY, ...STANDARD_ONLY, ...STEALTH_ONLY])

/** Fields a tier does not accept: sending one is a 422 `invalid_<field>_tier`, never silently dropped. */
const fieldsRejectedOn = (tier: JobType): readonly string[] => {
  switch (tier) {
    case 'light': return [...BROWSER_ONLY, ...STANDARD_ONLY, ...STEALTH_ONLY, 'actions']
    case 'standard': return [...LIGHT_ONLY, ...STEALTH_ONLY]
    case 'stealth': return [...LIGHT_ONLY, ...STANDARD_ONLY, 'user_agent']
  }
}

/** Tags are free-form labels (SPEC 2.2): any clean text (no control characters, valid Unicode) within these caps. */
export const MAX_TAGS = 50
export const MAX_TAG_LENGTH = 64
export const MAX_IDEMPOTENCY_TOKEN_LENGTH = 255
export const MAX_USER_AGENT_LENGTH = 1024
export const MAX_TARGET_URL_LENGTH = 8192
export const MAX_ACTIONS = 50
/** retry_on_status lists distinct statuses; more than this many is a mistake, not a policy. */
export const MAX_RETRY_STATUSES = 50
/** The body fields a request must have: without one it answers 400 `missing_<field>` (SPEC 7.1), not 422. */
export const REQUIRED_FIELDS = ['job_type', 'target_url'] as const
const BCP47 = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/

export interface JobSpecContext {
  readonly allowlist: Allowlist
  /** IANA zone check injected by the caller (Intl is available everywhere, but keep the domain deterministic). */
  readonly isTimeZone: (zone: string) => boolean
}

/** On failure, `missing` lists the absent required fields (a 400), `errors` every failing field (a 422 otherwise). */
export type JobSpecResult =
  | { readonly ok: true; readonly spec: JobSpec }
  | { readonly ok: false; readonly errors: readonly FieldError[]; readonly missing: readonly FieldError[] }

const failure = (errors: readonly FieldError[]): JobSpecResult => ({
  ok: false, errors, missing: errors.filter((e) => (REQUIRED_FIELDS as readonly string[]).includes(e.field) && e.code === `missing_${e.field}`),
})

export const validateJobSpec = (input: unknown, ctx: JobSpecContext): JobSpecResult => {
  const errors: Errors = []
  if (!isPlainObject(input)) return failure([fieldError('', 'invalid_body', 'the body must be a JSON object')])
  unknownFields(errors, '', input, JOB_REQUEST_FIELDS)

  const jobType = input.job_type === undefined
    ? (errors.push(fieldError('job_type', 'missing_job_type', 'job_type is required')), undefined)
    : oneOf(errors, 'job_type', 'invalid_job_type', input.job_type, JOB_TYPES)

  let targetUrl: string | undefined
  if (input.target_url === undefined) errors.push(fieldError('target_url', 'missing_target_url', 'target_url is required'))
  else if (typeof input.target_url !== 'string' || input.target_url.length > MAX_TARGET_URL_LENGTH || !isCleanText(input.target_url)) {
    errors.push(fieldError('target_url', 'invalid_target_url', `target_url must be an absolute http or https URL of at most ${MAX_TARGET_URL_LENGTH} characters, without control characters or invalid Unicode`))
  } else {
    const checked = checkTargetUrl(input.target_url, ctx.allowlist)
    if (checked.ok) targetUrl = checked.url.href
    else errors.push(fieldError('target_url', checked.code, checked.message))
  }

  if (jobType) {
    for (const field of fieldsRejectedOn(jobType)) {
      const value = input[field]
      const present = field === 'actions' ? Array.isArray(value) && value.length > 0 : value !== undefined
      if (present) errors.push(fieldError(field, `invalid_${field}_tier`, `${field} is not available on the ${jobType} tier`))
    }
  }
  const isBrowser = jobType === 'standard' || jobType === 'stealth'

  const timeoutMs = integerIn(errors, 'timeout_ms', 'invalid_timeout_ms', input.timeout_ms, 1000, 300_000)
  const tags = stringList(errors, 'tags', 'invalid_tags', input.tags, MAX_TAGS, MAX_TAG_LENGTH)
  const idempotencyToken = text(errors, 'idempotency_token', 'invalid_idempotency_token', input.idempotency_token, MAX_IDEMPOTENCY_TOKEN_LENGTH)
  const headers = headerMap(errors, 'headers', 'invalid_headers', input.headers)
  let userAgent: string | undefined
  if (input.user_agent !== undefined) {
    if (typeof input.user_agent === 'string' && input.user_agent.length <= MAX_USER_AGENT_LENGTH && isHeaderValue(input.user_agent)) userAgent = input.user_agent
    else errors.push(fieldError('user_agent', 'invalid_user_agent', `user_agent must be a header value of at most ${MAX_USER_AGENT_LENGTH} characters (no control characters, line breaks or characters beyond Latin-1)`))
  }

  const method = oneOf(errors, 'method', 'invalid_method', input.method, HTTP_METHODS) ?? 'GET'
  let body: string | null | undefined
  if (input.body !== undefined && input.body !== null) {
    body = string(errors, 'body', 'invalid_body', input.body, 10 * 1024 * 1024)
    if (body !== undefined && !['POST', 'PUT', 'PATCH'].includes(method)) {
      errors.push(fieldError('body', 'invalid_body', 'body is accepted for POST, PUT and PATCH only'))
    }
  } else if (input.body === null) body = null
  const followRedirects = boolean(errors, 'follow_redirects', 'invalid_follow_redirects', input.follow_redirects) ?? true
  const maxRedirects = integerIn(errors, 'max_redirects', 'invalid_max_redirects', input.max_redirects, 0, 20)
  const retryPolicy = validateRetryPolicy(errors, input.retry_policy)

  const headless = boolean(errors, 'headless', 'invalid_headless', input.headless) ?? true
  if (input.browser !== undefined) {
    const expected = jobType === 'stealth' ? 'stealth' : 'chromium'
    if (input.browser !== expected) errors.push(fieldError('browser', 'invalid_browser', `browser is set by the tier; on ${jobType ?? 'this tier'} it is ${expected}`))
  }
  const waitUntil = oneOf(errors, 'wait_until', 'invalid_wait_until', input.wait_until, WAIT_UNTIL) ?? 'load'
  const navigationTimeoutMs = integerIn(errors, 'navigation_timeout_ms', 'invalid_navigation_timeout_ms', input.navigation_timeout_ms, 1000, 300_000)
  const viewport = validateViewport(errors, input.viewport)
  const locale = string(errors, 'locale', 'invalid_locale', input.locale, 35)
  if (locale !== undefined && !BCP47.test(locale)) errors.push(fieldError('locale', 'invalid_locale', 'locale must be a BCP-47 tag such as en-US'))
  const timezoneId = string(errors, 'timezone_id', 'invalid_timezone_id', input.timezone_id, 64)
  if (timezoneId !== undefined && !ctx.isTimeZone(timezoneId)) errors.push(fieldError('timezone_id', 'invalid_timezone_id', 'timezone_id must be an IANA time zone name'))
  const actions = validateActions(errors, input.actions)

  const osName = oneOf(errors, 'os_name', 'invalid_os_name', input.os_name, OS_NAMES)
  let extensions: (typeof BROWSER_EXTENSIONS)[number][] = []
  if (input.browser_extensions !== undefined) {
    const list = stringList(errors, 'browser_extensions', 'invalid_browser_extensions', input.browser_extensions, 2, 32)
    if (list?.some((slug) => !(BROWSER_EXTENSIONS as readonly string[]).includes(slug))) {
      errors.push(fieldError('browser_extensions', 'invalid_browser_extensions', `browser_extensions may hold ${BROWSER_EXTENSIONS.join(', ')}`))
    } else if (list) extensions = [...new Set(list)] as typeof extensions
  }
  const proxy = validateProxy(errors, input.proxy, ctx.allowlist)

  const artifactOptions = validateArtifactOptions(errors, input.artifact_options, isBrowser || jobType === undefined)
  const formats = validateFormats(errors, input.formats, jobType, isPlainObject(input.artifact_options) ? input.artifact_options : {}, headless)
  // A format is the artifact it reads: asking for one turns its options on.
  for (const option of optionsOfFormats(formats ?? [])) artifactOptions[option] = true
  let extraction: ExtractionSpec | undefined
  if (input.extraction !== undefined) {
    const checked = validateExtraction(input.extraction)
    errors.push(...checked.errors)
    extraction = checked.value
  }

  if (errors.length > 0 || !jobType || !targetUrl) return failure(errors)
  // Sending hooks implies wanting their result unless the caller said otherwise; asking for it without hooks gets an empty result.
  const includeExtraction = extraction
    ? !(isPlainObject(input.artifact_options) && input.artifact_options.include_extraction === false)
    : artifactOptions.include_extraction
  return {
    ok: true,
    spec: {
      job_type: jobType,
      target_url: targetUrl,
      timeout_ms: timeoutMs ?? DEFAULT_TIMEOUT_MS,
      tags: tags ? [...new Set(tags)] : [],
      ...(idempotencyToken !== undefined ? { idempotency_token: idempotencyToken } : {}),
      ...(formats ? { formats } : {}),
      artifact_options: { ...artifactOptions, include_extraction: includeExtraction },
      ...(extraction ? { extraction } : includeExtraction ? { extraction: { hooks: [] } } : {}),
      actions,
      ...(headers ? { headers } : {}),
      ...(userAgent !== undefined ? { user_agent: userAgent } : {}),
      method,
      ...(body !== undefined ? { body } : {}),
      follow_redirects: followRedirects,
      max_redirects: maxRedirects ?? DEFAULT_MAX_REDIRECTS,
      retry_policy: retryPolicy,
      headless,
      wait_until: waitUntil,
      navigation_timeout_ms: navigationTimeoutMs ?? DEFAULT_NAVIGATION_TIMEOUT_MS,
      ...(viewport ? { viewport } : {}),
      ...(locale !== undefined ? { locale } : {}),
      ...(timezoneId !== undefined ? { timezone_id: timezoneId } : {}),
      ...(osName ? { os_name: osName } : {}),
      browser_extensions: extensions,
      ...(proxy ? { proxy } : {}),
    },
  }
}

const validateRetryPolicy = (errors: Errors, v: unknown): RetryPolicy => {
  if (v === undefined) return DEFAULT_RETRY_POLICY
  const bad = (message: string) => (errors.push(fieldError('retry_policy', 'invalid_retry_policy', message)), DEFAULT_RETRY_POLICY)
  if (!isPlainObject(v)) return bad('retry_policy must be an object')
  const before = errors.length
  unknownFields(errors, 'retry_policy.', v, new Set(['max_attempts', 'retry_on_status', 'retry_methods']))
  if (errors.length > before) return DEFAULT_RETRY_POLICY
  const { max_attempts, retry_on_status, retry_methods } = v
  if (max_attempts !== undefined && (typeof max_attempts !== 'number' || !Number.isInteger(max_attempts) || max_attempts < 1 || max_attempts > 10)) {
    return bad('retry_policy.max_attempts must be an integer from 1 to 10')
  }
  if (retry_on_status !== undefined && (!Array.isArray(retry_on_status) || retry_on_status.length > MAX_RETRY_STATUSES || retry_on_status.some((s) => !Number.isInteger(s) || s < 100 || s > 599))) {
    return bad(`retry_policy.retry_on_status must be a list of at most ${MAX_RETRY_STATUSES} HTTP status codes (100-599)`)
  }
  if (retry_methods !== undefined && (!Array.isArray(retry_methods) || retry_methods.length > HTTP_METHODS.length || retry_methods.some((m) => !(HTTP_METHODS as readonly unknown[]).includes(m)))) {
    return bad(`retry_policy.retry_methods must be a list of ${HTTP_METHODS.join(', ')}`)
  }
  return {
    max_attempts: (max_attempts as number | undefined) ?? DEFAULT_RETRY_POLICY.max_attempts,
    retry_on_status: (retry_on_status as number[] | undefined) ?? DEFAULT_RETRY_POLICY.retry_on_status,
    retry_methods: (retry_methods as HttpMethod[] | undefined) ?? DEFAULT_RETRY_POLICY.retry_methods,
  }
}

const validateViewport = (errors: Errors, v: unknown): { width: number; height: number } | undefined => {
  if (v === undefined) return undefined
  if (!isPlainObject(v)) {
    errors.push(fieldError('viewport', 'invalid_viewport', 'viewport must be an object with width and height'))
    return undefined
  }
  unknownFields(errors, 'viewport.', v, new Set(['width', 'height']))
  const width = v.width === undefined
    ? (errors.push(fieldError('viewport.width', 'invalid_viewport_width', 'viewport.width is required')), undefined)
    : integerIn(errors, 'viewport.width', 'invalid_viewport_width', v.width, 320, 7680)
  const height = v.height === undefined
    ? (errors.push(fieldError('viewport.height', 'invalid_viewport_height', 'viewport.height is required')), undefined)
    : integerIn(errors, 'viewport.height', 'invalid_viewport_height', v.height, 240, 4320)
  return width !== undefined && height !== undefined ? { width, height } : undefined
}

const ACTION_FIELDS: Readonly<Record<Action['type'], ReadonlySet<string>>> = {
  click: new Set(['type', 'selector']),
  fill: new Set(['type', 'selector', 'value']),
  scroll: new Set(['type', 'direction']),
  wait: new Set(['type', 'timeout_ms']),
}

const validateActions = (errors: Errors, v: unknown): Action[] => {
  if (v === undefined) return []
  if (!Array.isArray(v) || v.length > MAX_ACTIONS) {
    errors.push(fieldError('actions', 'invalid_actions', `actions must be a list of at most ${MAX_ACTIONS} actions`))
    return []
  }
  const actions: Action[] = []
  v.forEach((raw, i) => {
    const at = `actions[${i}]`
    if (!isPlainObject(raw)) return void errors.push(fieldError(at, 'invalid_action', `${at} must be an object`))
    const type = oneOf(errors, `${at}.type`, 'invalid_action_type', raw.type, ACTION_TYPES)
    if (type) unknownFields(errors, `${at}.`, raw, ACTION_FIELDS[type])
    const selector = () => {
      if (typeof raw.selector !== 'string' || raw.selector.trim() === '' || raw.selector.length > 2048) {
        errors.push(fieldError(`${at}.selector`, 'invalid_action_selector', `${at}.selector must be a non-empty CSS selector`))
        return undefined
      }
      return raw.selector
    }
    if (type === 'click') { const s = selector(); if (s) actions.push({ type, selector: s }) }
    if (type === 'fill') {
      const s = selector()
      const value = typeof raw.value === 'string' ? raw.value : (errors.push(fieldError(`${at}.value`, 'invalid_action_value', `${at}.value must be a string`)), undefined)
      if (s && value !== undefined) actions.push({ type, selector: s, value })
    }
    if (type === 'scroll') {
      const direction = oneOf(errors, `${at}.direction`, 'invalid_scroll_direction', raw.direction ?? 'down', ['down'] as const)
      if (direction) actions.push({ type, direction })
    }
    if (type === 'wait') {
      const ms = integerIn(errors, `${at}.timeout_ms`, 'invalid_action_timeout_ms', raw.timeout_ms, 0, 60_000)
      if (raw.timeout_ms === undefined) errors.push(fieldError(`${at}.timeout_ms`, 'invalid_action_timeout_ms', `${at}.timeout_ms is required`))
      if (ms !== undefined) actions.push({ type, timeout_ms: ms })
    }
  })
  return actions
}

const validateProxy = (errors: Errors, v: unknown, allowlist: Allowlist): ProxySpec | undefined => {
  if (v === undefined) return undefined
  if (!isPlainObject(v)) {
    errors.push(fieldError('proxy', 'invalid_proxy', 'proxy must be an object with server'))
    return undefined
  }
  unknownFields(errors, 'proxy.', v, new Set(['server', 'username', 'password', 'bypass']))
  let server: string | undefined
  if (typeof v.server !== 'string') errors.push(fieldError('proxy.server', 'invalid_proxy_server', 'proxy.server is required'))
  else {
    const explicitPort = /^https?:\/\/[^/]+:\d+\/?$/i.test(v.server)
    const checked = checkTargetUrl(v.server, allowlist)
    if (!explicitPort) errors.push(fieldError('proxy.server', 'invalid_proxy_server', 'proxy.server must be http(s)://host:port with an explicit port'))
    else if (!checked.ok) errors.push(fieldError('proxy.server', checked.code === 'unsafe_target_url' ? 'unsafe_proxy_server' : 'invalid_proxy_server', checked.message))
    else server = checked.url.origin
  }
  // Credentials end up in a Proxy-Authorization header, the bypass list in a browser flag: clean text only.
  const username = text(errors, 'proxy.username', 'invalid_proxy_username', v.username, 256)
  const password = text(errors, 'proxy.password', 'invalid_proxy_password', v.password, 256)
  const bypass = text(errors, 'proxy.bypass', 'invalid_proxy_bypass', v.bypass, 1024)
  if (!server) return undefined
  return { server, ...(username !== undefined ? { username } : {}), ...(password !== undefined ? { password } : {}), ...(bypass !== undefined ? { bypass } : {}) }
}

const validateArtifactOptions = (errors: Errors, v: unknown, browserTier: boolean): Record<keyof ArtifactOptions, boolean> => {
  const options: Record<string, boolean> = {
    include_html: true, include_response_body: false, include_extraction: false,
    ...Object.fromEntries([...PAGE_VIEW_OPTIONS, ...BROWSER_ARTIFACT_OPTIONS].map((k) => [k, false])),
  }
  const resolved = () => options as Record<keyof ArtifactOptions, boolean>
  if (v === undefined) return resolved()
  if (!isPlainObject(v)) {
    errors.push(fieldError('artifact_options', 'invalid_artifact_options', 'artifact_options must be an object of booleans'))
    return resolved()
  }
  for (const [rawKey, value] of Object.entries(v)) {
    const key = rawKey === 'block_stylesheets' ? 'block_styles' : rawKey
    const field = `artifact_options.${rawKey}`
    if (!(key in options)) { errors.push(fieldError(field, 'unknown_field', `${field} is not a known artifact option`)); continue }
    if (typeof value !== 'boolean') { errors.push(fieldError(field, `invalid_${key}`, `${field} must be a boolean`)); continue }
    if (!browserTier && value && (BROWSER_ARTIFACT_OPTIONS as readonly string[]).includes(key)) {
      errors.push(fieldError(field, `invalid_${key}_tier`, `${field} needs a browser tier (standard or stealth)`))
      continue
    }
    options[key] = value
  }
  return resolved()
}
