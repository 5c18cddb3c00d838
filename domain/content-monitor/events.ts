import { Schema } from 'effect'
import { SCRAPE_BACKENDS } from '../scrape/events.js'

export const RULE_TYPES = ['any_change', 'text_appeared', 'text_disappeared', 'status_code_change'] as const
export const MONITOR_STATUSES = ['active', 'paused', 'disabled'] as const
export type ContentMonitorStatus = (typeof MONITOR_STATUSES)[number]

export const Rule = Schema.Struct({
  type: Schema.Literal(...RULE_TYPES),
  /** Text rules: `needle` (1-512 characters) and `caseSensitive` (default false); other rules: empty. */
  config: Schema.Struct({ needle: Schema.optional(Schema.String), caseSensitive: Schema.optional(Schema.Boolean) }),
})
export type Rule = typeof Rule.Type

/** What one run saw: `hash` and `preview` come from the one detection normalization (domain/detection). */
export const Snapshot = Schema.Struct({
  hash: Schema.NullOr(Schema.String),
  preview: Schema.NullOr(Schema.String),
  statusCode: Schema.NullOr(Schema.Number),
  contentLength: Schema.NullOr(Schema.Number),
  capturedAt: Schema.String,
})
export type Snapshot = typeof Snapshot.Type

export class ContentMonitorCreated extends Schema.TaggedClass<ContentMonitorCreated>()('ContentMonitorCreated', {
  monitor_id: Schema.String,
  user_id: Schema.String,
  org_id: Schema.String,
  name: Schema.String,
  url: Schema.String,
  backend: Schema.Literal(...SCRAPE_BACKENDS),
  frequency_minutes: Schema.Number,
  rule: Rule,
  next_run_at: Schema.String,
  created_at: Schema.String,
}) {}

/** PATCH: only the fields given change; a frequency or status change also moves the next run. */
export class ContentMonitorUpdated extends Schema.TaggedClass<ContentMonitorUpdated>()('ContentMonitorUpdated', {
  monitor_id: Schema.String,
  name: Schema.optional(Schema.String),
  frequency_minutes: Schema.optional(Schema.Number),
  status: Schema.optional(Schema.Literal(...MONITOR_STATUSES)),
  rule: Schema.optional(Rule),
  next_run_at: Schema.NullOr(Schema.String),
  updated_at: Schema.String,
}) {}

/** A run was asked for: now (`force`) or at the monitor's scheduled time. Its id is a function of (monitor, instant). */
export class ContentMonitorRunRequested extends Schema.TaggedClass<ContentMonitorRunRequested>()('ContentMonitorRunRequested', {
  monitor_id: Schema.String,
  run_id: Schema.String,
  scheduled_at: Schema.String,
  forced: Schema.Boolean,
  requested_at: Schema.String,
}) {}

/** The run's job was admitted and is fetching (the job id is the run id). */
export class ContentMonitorRunStarted extends Schema.TaggedClass<ContentMonitorRunStarted>()('ContentMonitorRunStarted', {
  monitor_id: Schema.String,
  run_id: Schema.String,
  started_at: Schema.String,
}) {}

export const RUN_OUTCOMES = ['succeeded', 'failed', 'triggered', 'skipped'] as const

/**
 * A run ended. `succeeded`: no change by the rule; `triggered`: the rule fired (`change_summary` says why);
 * `failed`: no usable answer (`error_code`); `skipped`: not run (paused monitor, plan limits), at no cost.
 */
export class ContentMonitorRunFinished extends Schema.TaggedClass<ContentMonitorRunFinished>()('ContentMonitorRunFinished', {
  monitor_id: Schema.String,
  run_id: Schema.String,
  outcome: Schema.Literal(...RUN_OUTCOMES),
  change_summary: Schema.NullOr(Schema.String),
  snapshot: Schema.NullOr(Snapshot),
  /** Whether a text rule's needle was in the page (its edge memory); null for other rules or without an answer. */
  needle_present: Schema.NullOr(Schema.Boolean),
  error_code: Schema.NullOr(Schema.String),
  error_message: Schema.NullOr(Schema.String),
  /**
   * A failed run's HTTP status, when the target answered before the job failed (a body too large, say); null
   * otherwise. Added later: events recorded before it lack the field and read as null.
   */
  status_code: Schema.optionalWith(Schema.NullOr(Schema.Number), { default: () => null }),
  next_run_at: Schema.NullOr(Schema.String),
  completed_at: Schema.String,
}) {}

/** Disabled by the service after too many consecutive failed runs; the owner is e-mailed. */
export class ContentMonitorAutoDisabled extends Schema.TaggedClass<ContentMonitorAutoDisabled>()('ContentMonitorAutoDisabled', {
  monitor_id: Schema.String,
  consecutive_failures: Schema.Number,
  disabled_at: Schema.String,
}) {}

export const ContentMonitorEvent = Schema.Union(
  ContentMonitorCreated, ContentMonitorUpdated, ContentMonitorRunRequested, ContentMonitorRunStarted, ContentMonitorRunFinished, ContentMonitorAutoDisabled,
)
export type ContentMonitorEvent = typeof ContentMonitorEvent.Type

/** What a create asks for, recorded with its claim: the create can then be completed from the claim alone. */
export const ContentMonitorCreation = Schema.Struct({
  org_id: Schema.String,
  name: Schema.optional(Schema.String),
  url: Schema.String,
  backend: Schema.Literal(...SCRAPE_BACKENDS),
  frequency_minutes: Schema.Number,
  rule: Rule,
  next_run_at: Schema.String,
  created_at: Schema.String,
})
export type ContentMonitorCreation = typeof ContentMonitorCreation.Type

/** `content-monitor-quota-<user>`: the user's active monitors, claimed with the expected revision (50 at most). */
export class ContentMonitorPlaceClaimed extends Schema.TaggedClass<ContentMonitorPlaceClaimed>()('ContentMonitorPlaceClaimed', {
  user_id: Schema.String,
  monitor_id: Schema.String,
  at: Schema.String,
  /**
   * The monitor a create claims the place for (absent when a PATCH reactivates one, and on claims recorded before
   * the field existed): a create whose process stopped after its claim is completed from it, so no place is held by
   * a monitor that does not exist.
   */
  creation: Schema.optional(ContentMonitorCreation),
}) {}

export class ContentMonitorPlaceReleased extends Schema.TaggedClass<ContentMonitorPlaceReleased>()('ContentMonitorPlaceReleased', {
  user_id: Schema.String,
  monitor_id: Schema.String,
  at: Schema.String,
}) {}

export const ContentMonitorQuotaEvent = Schema.Union(ContentMonitorPlaceClaimed, ContentMonitorPlaceReleased)
export type ContentMonitorQuotaEvent = typeof ContentMonitorQuotaEvent.Type
