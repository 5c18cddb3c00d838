import { Schema } from 'effect'
import { JobSpec } from '../job/spec-schema.js'
import { DetectionConfig } from './detection-config.js'
import { DETECTION_EVENTS } from './detection-events.js'

export const OVERLAP_POLICIES = ['skip', 'buffer_one', 'allow'] as const
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number]
export const PAUSE_REASONS = ['user', 'failures', 'plan'] as const
export type PauseReason = (typeof PAUSE_REASONS)[number]
export const SKIP_STATUSES = ['skipped_quota', 'skipped_not_allowed'] as const
export const COMPLETION_STATUSES = ['delivered', 'blocked', 'failed', 'error'] as const
export type CompletionStatus = (typeof COMPLETION_STATUSES)[number]

/** A monitor's schedule: a 5-field cron evaluated in an IANA time zone. */
export const MonitorCron = { cron: Schema.String, timezone: Schema.String }

export class MonitorCreated extends Schema.TaggedClass<MonitorCreated>()('MonitorCreated', {
  monitor_id: Schema.String,
  org_id: Schema.String,
  name: Schema.String,
  ...MonitorCron,
  /** The job every run submits, validated as POST /v1/jobs validates it. */
  job: JobSpec,
  overlap_policy: Schema.Literal(...OVERLAP_POLICIES),
  detection: DetectionConfig,
  tags: Schema.Array(Schema.String),
  created_at: Schema.String,
}) {}

/** Only the changed fields are present. `baseline_reset` is true when the detection mode, selector or noise steps changed. */
export class MonitorUpdated extends Schema.TaggedClass<MonitorUpdated>()('MonitorUpdated', {
  monitor_id: Schema.String,
  name: Schema.optional(Schema.String),
  cron: Schema.optional(Schema.String),
  timezone: Schema.optional(Schema.String),
  job: Schema.optional(JobSpec),
  overlap_policy: Schema.optional(Schema.Literal(...OVERLAP_POLICIES)),
  detection: Schema.optional(DetectionConfig),
  tags: Schema.optional(Schema.Array(Schema.String)),
  baseline_reset: Schema.Boolean,
  updated_at: Schema.String,
}) {}

export class MonitorPaused extends Schema.TaggedClass<MonitorPaused>()('MonitorPaused', {
  monitor_id: Schema.String,
  org_id: Schema.String,
  reason: Schema.Literal(...PAUSE_REASONS),
  /** Why, in words (e.g. the failing runs' details, or the plan rule no longer met). */
  detail: Schema.String,
  paused_at: Schema.String,
}) {}

/** Clears the failure streak; the schedule restarts from `resumed_at` (no catch-up for the paused time). */
export class MonitorResumed extends Schema.TaggedClass<MonitorResumed>()('MonitorResumed', {
  monitor_id: Schema.String,
  resumed_at: Schema.String,
}) {}

export class MonitorDeleted extends Schema.TaggedClass<MonitorDeleted>()('MonitorDeleted', {
  monitor_id: Schema.String,
  deleted_at: Schema.String,
}) {}

/**
 * A run was fired: by the schedule (run_id derived from the monitor and `scheduled_for`, so an instant fires once)
 * or manually. `missed` counts the scheduled instants coalesced into this catch-up run after downtime. `queued` is
 * true when overlap policy `buffer_one` holds it until the running run completes (then MonitorRunDequeued starts it).
 */
export class MonitorRunFired extends Schema.TaggedClass<MonitorRunFired>()('MonitorRunFired', {
  monitor_id: Schema.String,
  run_id: Schema.String,
  scheduled_for: Schema.String,
  fired_at: Schema.String,
  trigger: Schema.Literal('schedule', 'manual'),
  missed: Schema.Number,
  queued: Schema.Boolean,
}) {}

/** A scheduled instant that started no run because of the overlap policy: `skipped` (skip) or `dropped` (buffer_one already holds one). */
export class MonitorFireOverlapped extends Schema.TaggedClass<MonitorFireOverlapped>()('MonitorFireOverlapped', {
  monitor_id: Schema.String,
  scheduled_for: Schema.String,
  trigger: Schema.Literal('schedule', 'manual'),
  missed: Schema.Number,
  outcome: Schema.Literal('skipped', 'dropped'),
  at: Schema.String,
}) {}

/** The buffered run starts now that the run before it completed. */
export class MonitorRunDequeued extends Schema.TaggedClass<MonitorRunDequeued>()('MonitorRunDequeued', {
  monitor_id: Schema.String,
  run_id: Schema.String,
  at: Schema.String,
}) {}

export class MonitorRunMinted extends Schema.TaggedClass<MonitorRunMinted>()('MonitorRunMinted', {
  monitor_id: Schema.String,
  run_id: Schema.String,
  job_id: Schema.String,
  minted_at: Schema.String,
}) {}

/** Free of charge: out of credits (or jobs), or the engine is not in the plan. */
export class MonitorRunSkipped extends Schema.TaggedClass<MonitorRunSkipped>()('MonitorRunSkipped', {
  monitor_id: Schema.String,
  org_id: Schema.String,
  run_id: Schema.String,
  status: Schema.Literal(...SKIP_STATUSES),
  detail: Schema.String,
  skipped_at: Schema.String,
}) {}

/** `job_id` is null for an `error` before a job existed. `detail` names the block signal and status code. */
export class MonitorRunCompleted extends Schema.TaggedClass<MonitorRunCompleted>()('MonitorRunCompleted', {
  monitor_id: Schema.String,
  run_id: Schema.String,
  job_id: Schema.NullOr(Schema.String),
  status: Schema.Literal(...COMPLETION_STATUSES),
  detail: Schema.String,
  completed_at: Schema.String,
}) {}

export const MONITOR_LIFECYCLE_EVENTS = [
  MonitorCreated, MonitorUpdated, MonitorPaused, MonitorResumed, MonitorDeleted,
  MonitorRunFired, MonitorFireOverlapped, MonitorRunDequeued, MonitorRunMinted, MonitorRunSkipped, MonitorRunCompleted,
] as const

/** Every event of a `monitor-<id>` stream: the lifecycle and runs (here) and detection's (detection-events.ts). */
export const MonitorEvent = Schema.Union(...MONITOR_LIFECYCLE_EVENTS, ...DETECTION_EVENTS)
export type MonitorEvent = typeof MonitorEvent.Type
