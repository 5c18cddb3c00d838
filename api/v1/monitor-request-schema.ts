import { DETECTION_MODES, DIGEST_PERIODS } from '../../domain/monitor/detection-config.js'
import { Schema } from 'effect'
import { NoiseSteps } from '../../domain/detection/noise.js'
import { openApiSchemaOf } from '../schema-of.js'
import { MAX_CONSECUTIVE, MAX_COOLDOWN_SECONDS, MAX_IGNORE_SELECTORS, MAX_NOTIFY_EMAILS } from '../../domain/monitor/detection-validation.js'
import { OVERLAP_POLICIES } from '../../domain/monitor/events.js'
import { MAX_MONITOR_NAME_LENGTH } from '../../domain/monitor/request.js'
import { JobRequestSchema } from './job-request-schema.js'

const { idempotency_token: _token, ...jobProperties } = JobRequestSchema.properties

const detection = {
  type: 'object', additionalProperties: false,
  description: 'Change detection (SPEC 2.6). On update, only the fields sent change; `{enabled: false}` turns detection off while runs go on; a changed `mode`, `selector` or `noise` resets the baseline. A block sent without `enabled` enables detection. Codes: `invalid_detection`, `detection_not_in_plan`, `detection_limit_reached`.',
  properties: {
    enabled: { type: 'boolean', description: 'Code: `invalid_detection_enabled`.' },
    mode: { type: 'string', enum: DETECTION_MODES, default: 'text', description: '`text`, `selector`, `extract` (needs extraction hooks on the job: `missing_extraction`), `json`. Code: `invalid_detection_mode`.' },
    selector: { type: ['string', 'null'], description: 'CSS, or XPath when it starts with `/` or `(`; required with mode selector (`missing_selector`), refused with other modes. Codes: `invalid_selector`, `selector_too_complex` (a CSS selector over the caps of docs/limits.md). A page over the detection caps (10 MiB, 512 deep, 500,000 elements) or whose reading passes its 10 s deadline is a run with health `unreadable`, never a change.' },
    ignore_selectors: { type: 'array', maxItems: MAX_IGNORE_SELECTORS, items: { type: 'string' }, description: 'Masked before fingerprinting. Codes: `invalid_ignore_selectors`, `selector_too_complex`.' },
    min_change_ratio: { type: 'number', minimum: 0, maximum: 1, default: 0, description: 'Code: `invalid_min_change_ratio`.' },
    consecutive: { type: 'integer', minimum: 1, maximum: MAX_CONSECUTIVE, default: 1, description: 'Code: `invalid_consecutive`.' },
    cooldown_seconds: { type: 'integer', minimum: 0, maximum: MAX_COOLDOWN_SECONDS, default: 0, description: 'Code: `invalid_cooldown_seconds`.' },
    notify: {
      type: 'object', additionalProperties: false, description: 'Code: `invalid_notify`.',
      properties: {
        webhook: { type: 'boolean', default: true, description: 'Code: `invalid_notify_webhook`.' },
        email: { type: 'array', maxItems: MAX_NOTIFY_EMAILS, items: { type: 'string', format: 'email' }, description: 'Code: `invalid_notify_email`.' },
        digest: { type: ['string', 'null'], enum: [...DIGEST_PERIODS, null], description: 'Code: `invalid_notify_digest`.' },
      },
    },
    noise: {
      description: 'Noise quietened before comparing, so it alone never alerts (docs/change-detection.md, "Noise"): `dates` (2026-12-02, Dec 2, 2026, weekday names), `times` (15:49, 3 PM), `relative_times` ("5 minutes ago", "just now"), `counters` ("1,234 views", "12 people are viewing"; JSON fields such as `views`, `took_ms`), `tokens` (UUIDs, hashes, cache-busting query values; JSON fields such as `request_id`, `trace_id`). Every step is on by default. `true` turns every step on, `false` every step off; an object switches the steps it names and keeps the others. Only the matched words are replaced, so a real change beside them is still reported. A change resets the baseline. Codes: `invalid_noise`, `invalid_noise_step`, `unknown_field`.',
      oneOf: [
        { type: 'boolean' },
        openApiSchemaOf(Schema.partial(NoiseSteps)),
      ],
    },
  },
} as const

const monitorProperties = {
  name: { type: 'string', minLength: 1, maxLength: MAX_MONITOR_NAME_LENGTH, description: 'Codes: `missing_name` (400), `invalid_name`.' },
  cron: { type: 'string', description: 'Five fields: minute hour day-of-month month day-of-week, evaluated in `timezone` (daylight saving: see the README\'s table). Codes: `missing_cron` (400), `invalid_cron` (not five fields apart by spaces, a line break, tab or other character outside printable ASCII, not parseable, or never fires), `interval_below_plan_minimum` (two fires of the coming year closer than the plan allows, in real time).' },
  timezone: { type: 'string', default: 'UTC', description: 'IANA name. Code: `invalid_timezone`.' },
  overlap_policy: { type: 'string', enum: OVERLAP_POLICIES, default: 'skip', description: '`skip`: no new run while one is going; `buffer_one`: at most one run waits; `allow`: runs regardless. Code: `invalid_overlap_policy`.' },
  detection,
} as const

const PLAN_CODES = 'Plan rules answer 422: `monitoring_not_in_plan`, `monitor_limit_reached`, `detection_not_in_plan`, `detection_limit_reached`, `interval_below_plan_minimum`, `job_type_not_in_plan`.'

export const MonitorRequestSchema = {
  $id: 'MonitorRequest',
  type: 'object',
  required: ['name', 'cron', 'job_type', 'target_url'],
  additionalProperties: false,
  description: `A monitor: its own fields plus the job fields of its tier, validated exactly as POST /v1/jobs validates them (same codes; \`idempotency_token\` is not accepted: each run is idempotent on its scheduled instant). \`tags\` label the monitor and its runs' jobs. ${PLAN_CODES}`,
  properties: { ...monitorProperties, ...jobProperties },
} as const

export const MonitorUpdateSchema = {
  $id: 'MonitorUpdate',
  type: 'object',
  additionalProperties: false,
  description: `Any subset of the monitor's fields. Job fields sent describe the runs' job anew: \`job_type\`, \`target_url\` and \`tags\` are kept unless sent, other job options not sent return to their defaults. Omitting \`detection\` keeps it. ${PLAN_CODES}`,
  properties: { ...monitorProperties, ...jobProperties },
} as const
