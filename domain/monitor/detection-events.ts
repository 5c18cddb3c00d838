/**
 * Detection's events of the monitor stream (baseline, evaluations, changes, summaries, e-mails); they join
 * MonitorEvent (events.ts). The monitor decider ignores the ones it does not handle.
 */
import { Schema } from 'effect'

export const BASELINE_REASONS = ['first_run', 'reset', 'normalization_changed'] as const
export const EVALUATION_OUTCOMES = ['unchanged', 'awaiting_consecutive', 'below_min_change_ratio', 'selector_missing', 'unreadable'] as const
export const NOTIFY_CHANNELS = ['webhook', 'email', 'digest'] as const

/** The content changes are measured against; the first one of a monitor (reason first_run) activates it. */
export class MonitorBaselineRecorded extends Schema.TaggedClass<MonitorBaselineRecorded>()('MonitorBaselineRecorded', {
  monitor_id: Schema.String,
  run_id: Schema.String,
  fingerprint: Schema.String,
  normalization_version: Schema.Number,
  reason: Schema.Literal(...BASELINE_REASONS),
  recorded_at: Schema.String,
}) {}

/** A delivered run compared with the baseline without recording a change. */
export class MonitorRunEvaluated extends Schema.TaggedClass<MonitorRunEvaluated>()('MonitorRunEvaluated', {
  monitor_id: Schema.String,
  run_id: Schema.String,
  /** `unreadable`: the page loaded but its content cannot be read in the mode (json: not JSON; extract: no result). */
  health: Schema.Literal('ok', 'selector_missing', 'unreadable'),
  /** Null when the content could not be read in the monitor's mode (selector_missing, unreadable). */
  fingerprint: Schema.NullOr(Schema.String),
  outcome: Schema.Literal(...EVALUATION_OUTCOMES),
  checked_at: Schema.String,
}) {}

/** A change record (SPEC 2.6); the new fingerprint becomes the baseline. The diff is a blob at `diff_key`. */
export class ChangeDetected extends Schema.TaggedClass<ChangeDetected>()('ChangeDetected', {
  monitor_id: Schema.String,
  change_id: Schema.String,
  run_id: Schema.String,
  job_id: Schema.String,
  old_fingerprint: Schema.String,
  new_fingerprint: Schema.String,
  change_ratio: Schema.NullOr(Schema.Number),
  has_diff: Schema.Boolean,
  diff_key: Schema.String,
  /** Lines of the stored diff (`-`/`+` lines). */
  diff_lines: Schema.Number,
  /** Empty when the change fell within cooldown_seconds of the last notified one. */
  notified_channels: Schema.Array(Schema.Literal(...NOTIFY_CHANNELS)),
  detected_at: Schema.String,
}) {}

export class ChangeSummarized extends Schema.TaggedClass<ChangeSummarized>()('ChangeSummarized', {
  monitor_id: Schema.String,
  change_id: Schema.String,
  summary: Schema.String,
  /** `rules` (built in) or `model` (the configured chat-completions provider). */
  summarizer: Schema.String,
  summarized_at: Schema.String,
}) {}

/**
 * The change gets no summary: summaries are switched off for the organization, or the summarizer failed or missed
 * its deadline. With ChangeSummarized it settles a change's summary; exactly one of the two is recorded per change
 * (the `schedule.change_detected` webhook goes out from it).
 */
export class ChangeSummaryUnavailable extends Schema.TaggedClass<ChangeSummaryUnavailable>()('ChangeSummaryUnavailable', {
  monitor_id: Schema.String,
  change_id: Schema.String,
  reason: Schema.Literal('switched_off', 'failed'),
  recorded_at: Schema.String,
}) {}

/** One per (recipient, change): a retried send finds it and sends nothing. */
export class ChangeEmailSent extends Schema.TaggedClass<ChangeEmailSent>()('ChangeEmailSent', {
  monitor_id: Schema.String,
  change_id: Schema.String,
  recipient: Schema.String,
  sent_at: Schema.String,
}) {}

/** One per (recipient, monitor, period); `period` is e.g. `daily:2026-11-23` or `weekly:2026-11-23` (its first day). */
export class DigestSent extends Schema.TaggedClass<DigestSent>()('DigestSent', {
  monitor_id: Schema.String,
  recipient: Schema.String,
  period: Schema.String,
  change_ids: Schema.Array(Schema.String),
  sent_at: Schema.String,
}) {}

/** The recipient followed an unsubscribe link: no more change e-mails or digests of this monitor. */
export class MonitorEmailUnsubscribed extends Schema.TaggedClass<MonitorEmailUnsubscribed>()('MonitorEmailUnsubscribed', {
  monitor_id: Schema.String,
  recipient: Schema.String,
  unsubscribed_at: Schema.String,
}) {}

export const DETECTION_EVENTS = [
  MonitorBaselineRecorded, MonitorRunEvaluated, ChangeDetected, ChangeSummarized, ChangeSummaryUnavailable, ChangeEmailSent, DigestSent, MonitorEmailUnsubscribed,
] as const
