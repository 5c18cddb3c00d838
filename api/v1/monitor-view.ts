import { NoiseSteps } from '../../domain/detection/noise.js'
import { openApiSchemaOf } from '../schema-of.js'
import { noiseOf } from '../../domain/monitor/detection-config.js'
import { PLANS, type PlanName } from '../../domain/plans.js'
import type { MonitorDoc, MonitorRunDoc } from '../../projections/monitors.js'

/** The public monitor record: the org id and a customer proxy's password never leave the service. */
export const monitorView = (doc: MonitorDoc, plan: PlanName) => {
  const { proxy, idempotency_token: _token, ...job } = doc.job
  return {
    id: doc.monitor_id,
    name: doc.name,
    status: doc.status,
    paused_reason: doc.paused_reason,
    paused_detail: doc.paused_detail,
    cron: doc.cron,
    timezone: doc.timezone,
    next_run_at: doc.next_run_at,
    overlap_policy: doc.overlap_policy,
    job_type: doc.job.job_type,
    target_url: doc.job.target_url,
    tags: doc.tags,
    job: { ...job, ...(proxy ? { proxy: { server: proxy.server, ...(proxy.username ? { username: proxy.username } : {}) } } : {}) },
    detection: { ...doc.detection, noise: noiseOf(doc.detection), health: doc.health, history_days: PLANS[plan].changeDetection?.historyDays ?? 0 },
    failure_streak: doc.failure_streak,
    runs_fired: doc.runs_fired,
    skipped_fires: doc.skipped_fires,
    dropped_fires: doc.dropped_fires,
    missed_fires: doc.missed_fires,
    last_run_at: doc.last_run_at,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  }
}

export const monitorRunView = (doc: MonitorRunDoc) => ({
  run_id: doc.run_id,
  trigger: doc.trigger,
  scheduled_for: doc.scheduled_for,
  fired_at: doc.fired_at,
  missed: doc.missed,
  status: doc.status,
  job_id: doc.job_id,
  detail: doc.detail,
  finished_at: doc.finished_at,
})

const nullableString = { type: ['string', 'null'] } as const
const dateTime = { type: 'string', format: 'date-time' } as const

export const MonitorViewSchema = {
  $id: 'Monitor',
  type: 'object',
  additionalProperties: true,
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    status: { type: 'string', enum: ['active', 'paused'], description: '`active` fires on its schedule; `paused` does not (see `paused_reason`).' },
    paused_reason: { type: ['string', 'null'], enum: ['user', 'failures', 'plan', null], description: '`user` (POST .../pause), `failures` (3 consecutive runs blocked, failed or in error), `plan` (the plan no longer allows it).' },
    paused_detail: nullableString,
    cron: { type: 'string' },
    timezone: { type: 'string' },
    next_run_at: { type: ['string', 'null'], format: 'date-time', description: 'The next scheduled instant (null while paused). In the past only while the scheduler catches up.' },
    overlap_policy: { type: 'string', enum: ['skip', 'buffer_one', 'allow'] },
    job_type: { type: 'string', enum: ['light', 'standard', 'stealth'] },
    target_url: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    job: { type: 'object', additionalProperties: true, description: 'The job each run submits, with every default applied (a proxy password is never shown).' },
    detection: {
      type: 'object', additionalProperties: true,
      description: 'The detection block with every default applied, its `health` and the plan\'s `history_days`.',
      properties: {
        enabled: { type: 'boolean' },
        mode: { type: 'string', enum: ['text', 'selector', 'extract', 'json'] },
        selector: nullableString,
        ignore_selectors: { type: 'array', items: { type: 'string' } },
        min_change_ratio: { type: 'number' },
        consecutive: { type: 'integer' },
        cooldown_seconds: { type: 'integer' },
        notify: { type: 'object', additionalProperties: true },
        noise: { ...openApiSchemaOf(NoiseSteps), description: 'The noise steps quietened before comparing (all on by default; blocks made before they existed read all on).' },
        history_days: { type: 'integer' },
        health: {
          type: 'object',
          properties: {
            status: {
              type: ['string', 'null'], enum: ['ok', 'selector_missing', 'unreadable', 'blocked', 'failed', null],
              description: '`ok` (the last delivered run was compared), `selector_missing` (the page loaded but the selector matches nothing), `unreadable` (the page loaded but its content cannot be read in the mode: not JSON in mode json, no extraction result in mode extract, a binary answer with no text in mode text), `blocked` / `failed` (the last run did not deliver), null before any evaluated run.',
            },
            last_checked_at: { type: ['string', 'null'], format: 'date-time' },
            last_change_at: { type: ['string', 'null'], format: 'date-time' },
          },
        },
      },
    },
    failure_streak: { type: 'integer', description: 'Consecutive runs that did not deliver; 3 pauses the monitor.' },
    runs_fired: { type: 'integer' },
    skipped_fires: { type: 'integer', description: 'Scheduled instants not run because a run was still going (overlap policy `skip`).' },
    dropped_fires: { type: 'integer', description: 'Scheduled instants dropped because one run was already queued (overlap policy `buffer_one`).' },
    missed_fires: { type: 'integer', description: 'Instants coalesced into catch-up runs after the scheduler was down.' },
    last_run_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: dateTime,
    updated_at: dateTime,
  },
} as const

export const MonitorRunSchema = {
  $id: 'MonitorRun',
  type: 'object',
  additionalProperties: true,
  properties: {
    run_id: { type: 'string' },
    trigger: { type: 'string', enum: ['schedule', 'manual'] },
    scheduled_for: dateTime,
    fired_at: dateTime,
    missed: { type: 'integer', description: 'Earlier instants this catch-up run stands for.' },
    status: {
      type: 'string', enum: ['queued', 'pending', 'minted', 'delivered', 'blocked', 'failed', 'skipped_quota', 'skipped_not_allowed', 'error'],
      description: '`queued` (held by buffer_one), `pending` (fired, job not yet created), `minted` (a job was created), `delivered` (content came back), `blocked` (HTTP 403/429, a challenge, `stealth_blocked`), `failed` (no content), `skipped_quota` (out of credits or jobs; free), `skipped_not_allowed` (engine not in the plan; free), `error` (the run could not be created).',
    },
    job_id: nullableString,
    detail: { type: ['string', 'null'], description: 'Names the block signal and status code for blocked runs, the reason for others.' },
    finished_at: { type: ['string', 'null'], format: 'date-time' },
  },
} as const
