import { fieldError, type FieldError } from '../errors.js'
import type { JobType } from '../job/spec.js'
import { validateJobSpec, type JobSpec, type JobSpecContext } from '../job/spec.js'
import { boolean, isPlainObject, oneOf, unknownFields, type Errors } from '../validation.js'
import { SCRAPE_BACKENDS, type ScrapeBackend } from './events.js'

/** Each account-API backend is a job tier: a plain HTTP fetch, the standard browser, the stealth browser. */
export const BACKEND_TIERS: Readonly<Record<ScrapeBackend, JobType>> = { httpx: 'light', playwright: 'standard', scrapling: 'stealth' }

export const SCRAPE_WAIT_UNTIL = ['load', 'domcontentloaded', 'networkidle'] as const
/** The longest `timeout` accepted: the job's timeout_ms ceiling (300 s). */
export const MAX_SCRAPE_TIMEOUT_SECONDS = 300
export const DEFAULT_SCRAPE_TIMEOUT_SECONDS = 30
/** SPEC 8: the request waits for the result at most the scrape's timeout plus this. */
export const SCRAPE_WAIT_GRACE_SECONDS = 15

export interface ScrapeOptions {
  readonly url: string
  readonly backend: ScrapeBackend
  readonly saveHtml: boolean
  readonly takeScreenshot: boolean
  readonly timeoutSeconds: number
}

export type ScrapeRequestResult =
  | { readonly ok: true; readonly options: ScrapeOptions; readonly spec: JobSpec }
  | { readonly ok: false; readonly errors: readonly FieldError[] }

const FIELDS = new Set(['url', 'backend', 'include_body', 'saveHtml', 'take_screenshot', 'takeScreenshot', 'timeout', 'wait_until'])
/** Job fields reported under the scrape's own names. */
const JOB_FIELD_NAMES: Readonly<Record<string, string>> = { target_url: 'url', timeout_ms: 'timeout', navigation_timeout_ms: 'timeout', wait_until: 'wait_until' }

/** A boolean given under its name or its alias; both given and different is an error on the alias. */
const aliased = (errors: Errors, input: Record<string, unknown>, name: string, alias: string, fallback: boolean): boolean => {
  const primary = boolean(errors, name, `invalid_${name}`, input[name])
  const second = boolean(errors, alias, `invalid_${alias}`, input[alias])
  if (primary !== undefined && second !== undefined && primary !== second) {
    errors.push(fieldError(alias, 'conflicting_alias', `${alias} is an alias of ${name}; they must not disagree`))
  }
  return primary ?? second ?? fallback
}

/**
 * Validates a POST /scrapes body (SPEC 2.4, aliases included) and turns it into a job spec of the backend's tier:
 * the scrape's `timeout` is the job's fetch timeout (and a browser's navigation timeout), `include_body` asks for the
 * page HTML (and, on httpx, the raw body of non-HTML answers), `take_screenshot` for a PNG (browser backends only).
 * The job spec's own checks (URL safety, ranges) run too; their errors are named by the scrape's fields.
 */
export const validateScrapeRequest = (input: unknown, ctx: JobSpecContext): ScrapeRequestResult => {
  const errors: Errors = []
  if (!isPlainObject(input)) return { ok: false, errors: [fieldError('', 'invalid_body', 'the body must be a JSON object')] }
  unknownFields(errors, '', input, FIELDS)
  if (input.url === undefined) errors.push(fieldError('url', 'missing_url', 'url is required'))
  const backend = input.backend === undefined
    ? (errors.push(fieldError('backend', 'missing_backend', 'backend is required')), undefined)
    : oneOf(errors, 'backend', 'invalid_backend', input.backend, SCRAPE_BACKENDS)
  const saveHtml = aliased(errors, input, 'include_body', 'saveHtml', true)
  const takeScreenshot = aliased(errors, input, 'take_screenshot', 'takeScreenshot', false)
  let timeoutSeconds = DEFAULT_SCRAPE_TIMEOUT_SECONDS
  if (input.timeout !== undefined) {
    if (typeof input.timeout !== 'number' || !Number.isFinite(input.timeout) || input.timeout <= 0 || input.timeout > MAX_SCRAPE_TIMEOUT_SECONDS) {
      errors.push(fieldError('timeout', 'invalid_timeout', `timeout must be a number of seconds above 0 and at most ${MAX_SCRAPE_TIMEOUT_SECONDS}`))
    } else timeoutSeconds = input.timeout
  }
  const waitUntil = oneOf(errors, 'wait_until', 'invalid_wait_until', input.wait_until, SCRAPE_WAIT_UNTIL)
  if (backend === 'httpx' && takeScreenshot) {
    errors.push(fieldError(input.take_screenshot !== undefined ? 'take_screenshot' : 'takeScreenshot', 'screenshot_needs_browser', 'screenshots need the playwright or scrapling backend'))
  }
  if (errors.length > 0 || backend === undefined) return { ok: false, errors }

  const tier = BACKEND_TIERS[backend]
  const browser = tier !== 'light'
  // The engines' smallest timeout is 1 s; the request's wait still uses the scrape's own timeout.
  const timeoutMs = Math.min(MAX_SCRAPE_TIMEOUT_SECONDS * 1000, Math.max(1000, Math.round(timeoutSeconds * 1000)))
  const job = validateJobSpec({
    job_type: tier, target_url: input.url, timeout_ms: timeoutMs,
    artifact_options: { include_html: saveHtml, include_response_body: saveHtml && !browser, ...(browser ? { include_screenshot: takeScreenshot } : {}) },
    // httpx has no page to wait for: wait_until only applies to the browser backends.
    ...(browser ? { navigation_timeout_ms: timeoutMs, ...(waitUntil ? { wait_until: waitUntil } : {}) } : {}),
  }, ctx)
  if (!job.ok) {
    const renamed = [...job.missing, ...job.errors].map((e) => {
      const field = JOB_FIELD_NAMES[e.field] ?? e.field
      return fieldError(field, e.code.replace('target_url', 'url'), e.message.replace('target_url', 'url'))
    })
    return { ok: false, errors: renamed.filter((e, i) => renamed.findIndex((o) => o.field === e.field && o.code === e.code) === i) }
  }
  return { ok: true, options: { url: job.spec.target_url, backend, saveHtml, takeScreenshot, timeoutSeconds }, spec: job.spec }
}

/** Wait budget of a scrape request, in seconds (SPEC 8). */
export const scrapeWaitSeconds = (options: Pick<ScrapeOptions, 'timeoutSeconds'>) => options.timeoutSeconds + SCRAPE_WAIT_GRACE_SECONDS
