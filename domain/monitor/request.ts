import { fieldError, type FieldError } from '../errors.js'
import { JOB_REQUEST_FIELDS, validateJobSpec, type JobSpec, type JobSpecContext } from '../job/spec.js'
import { checkCron, isTimeZone } from '../schedule/schedule.js'
import { isPlainObject, oneOf, text, type Errors } from '../validation.js'
import type { MonitorFields } from './decider.js'
import { DETECTION_OFF, validateDetection } from './detection-validation.js'
import { OVERLAP_POLICIES } from './events.js'

export const MAX_MONITOR_NAME_LENGTH = 200
/** The monitor's own fields; the rest of a monitor request is the job of its runs, validated as POST /v1/jobs does. */
const MONITOR_FIELDS = ['name', 'cron', 'timezone', 'overlap_policy', 'detection'] as const
export const MONITOR_REQUEST_FIELDS: ReadonlySet<string> = new Set([...MONITOR_FIELDS, ...[...JOB_REQUEST_FIELDS].filter((f) => f !== 'idempotency_token')])
const REQUIRED = ['name', 'cron', 'job_type', 'target_url'] as const

export type MonitorRequestResult =
  | { readonly ok: true; readonly fields: MonitorFields }
  | { readonly ok: false; readonly errors: readonly FieldError[]; readonly missing: readonly FieldError[] }

const failure = (errors: readonly FieldError[]): MonitorRequestResult => ({
  ok: false, errors, missing: errors.filter((e) => (REQUIRED as readonly string[]).includes(e.field) && e.code === `missing_${e.field}`),
})

const splitJobFields = (input: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(input).filter(([k]) => !(MONITOR_FIELDS as readonly string[]).includes(k)))

const checkSchedule = (errors: Errors, cron: unknown, timezone: unknown): void => {
  if (cron !== undefined) {
    const checked = typeof cron === 'string' ? checkCron(cron) : { ok: false as const, message: 'cron must be a string' }
    if (!checked.ok) errors.push(fieldError('cron', 'invalid_cron', checked.message))
  }
  if (timezone !== undefined && (typeof timezone !== 'string' || !isTimeZone(timezone))) {
    errors.push(fieldError('timezone', 'invalid_timezone', 'timezone must be an IANA time zone name such as Europe/Berlin'))
  }
}

const checkExtractMode = (errors: Errors, fields: Pick<MonitorFields, 'detection' | 'job'>): void => {
  if (fields.detection.enabled && fields.detection.mode === 'extract' && (fields.job.extraction?.hooks.length ?? 0) === 0) {
    errors.push(fieldError('detection.mode', 'missing_extraction', 'detection mode extract needs extraction hooks on the job'))
  }
}

/** A monitor creation (SPEC 2.6): the monitor's fields plus the job fields of its tier. */
export const validateMonitorCreate = (input: unknown, ctx: JobSpecContext): MonitorRequestResult => {
  if (!isPlainObject(input)) return failure([fieldError('', 'invalid_body', 'the body must be a JSON object')])
  const errors: Errors = []
  if (input.idempotency_token !== undefined) errors.push(fieldError('idempotency_token', 'unknown_field', 'a monitor run is idempotent on its scheduled instant; idempotency_token is not accepted'))
  for (const field of ['name', 'cron'] as const) {
    if (input[field] === undefined) errors.push(fieldError(field, `missing_${field}`, `${field} is required`))
  }
  const name = text(errors, 'name', 'invalid_name', input.name, MAX_MONITOR_NAME_LENGTH)
  checkSchedule(errors, input.cron, input.timezone)
  const overlap = oneOf(errors, 'overlap_policy', 'invalid_overlap_policy', input.overlap_policy, OVERLAP_POLICIES) ?? 'skip'
  const detection = input.detection === undefined ? DETECTION_OFF : validateDetection(errors, input.detection, DETECTION_OFF)
  const job = validateJobSpec(splitJobFields(input), ctx)
  if (!job.ok) errors.push(...job.errors)
  if (job.ok && detection) checkExtractMode(errors, { job: job.spec, detection })
  if (errors.length > 0 || !job.ok || !detection || name === undefined) return failure(errors)
  return {
    ok: true,
    fields: {
      name, cron: (input.cron as string).trim(), timezone: (input.timezone as string | undefined) ?? 'UTC', job: job.spec,
      overlap_policy: overlap, detection, tags: job.spec.tags,
    },
  }
}

export type MonitorUpdateResult =
  | { readonly ok: true; readonly changes: Partial<MonitorFields> }
  | { readonly ok: false; readonly errors: readonly FieldError[] }

/**
 * A monitor update: any subset of the creation fields. Job fields describe the runs' job anew: `job_type`,
 * `target_url` and `tags` are kept unless sent, other job options not sent return to their defaults, and the whole is
 * validated as POST /v1/jobs validates it. Omitting `detection` keeps it; a detection block changes only the fields it
 * names.
 */
export const validateMonitorUpdate = (input: unknown, current: MonitorFields, ctx: JobSpecContext): MonitorUpdateResult => {
  if (!isPlainObject(input)) return { ok: false, errors: [fieldError('', 'invalid_body', 'the body must be a JSON object')] }
  const errors: Errors = []
  for (const key of Object.keys(input)) {
    if (!MONITOR_REQUEST_FIELDS.has(key)) errors.push(fieldError(key, 'unknown_field', `${key} is not a known field`))
  }
  const name = text(errors, 'name', 'invalid_name', input.name, MAX_MONITOR_NAME_LENGTH)
  checkSchedule(errors, input.cron, input.timezone)
  const overlap = oneOf(errors, 'overlap_policy', 'invalid_overlap_policy', input.overlap_policy, OVERLAP_POLICIES)
  const detection = input.detection === undefined ? undefined : validateDetection(errors, input.detection, current.detection)
  const jobChanges = splitJobFields(input)
  let job: JobSpec | undefined
  if (Object.keys(jobChanges).length > 0) {
    const checked = validateJobSpec({ job_type: current.job.job_type, target_url: current.job.target_url, tags: current.tags, ...jobChanges }, ctx)
    if (checked.ok) job = checked.spec
    else errors.push(...checked.errors)
  }
  if (errors.length === 0) checkExtractMode(errors, { job: job ?? current.job, detection: detection ?? current.detection })
  if (errors.length > 0) return { ok: false, errors }
  const changes: Partial<MonitorFields> = {
    ...(name !== undefined ? { name } : {}),
    ...(input.cron !== undefined ? { cron: (input.cron as string).trim() } : {}),
    ...(input.timezone !== undefined ? { timezone: input.timezone as string } : {}),
    ...(overlap !== undefined ? { overlap_policy: overlap } : {}),
    ...(detection !== undefined ? { detection } : {}),
    ...(job !== undefined ? { job, tags: job.tags } : {}),
  }
  return { ok: true, changes }
}
