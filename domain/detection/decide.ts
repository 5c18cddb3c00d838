/**
 * What one delivered run means for a monitor's detection (SPEC 2.6), as a pure function of what detection remembers
 * from the monitor's stream, the monitor's detection block, the run's normalized content and the current time.
 * Only delivered runs reach here; blocked and failed runs are never a change.
 */
import type { ContentDiff } from './diff.js'
import { NORMALIZATION_VERSION } from './normalize.js'

export type NotifyChannel = 'webhook' | 'email' | 'digest'

/** The part of the detection block decisions read (domain/monitor/detection-config.ts has the whole block). */
export interface DetectionRules {
  readonly enabled: boolean
  readonly min_change_ratio: number
  readonly consecutive: number
  readonly cooldown_seconds: number
  readonly notify: { readonly webhook: boolean; readonly email: readonly string[]; readonly digest: string | null }
}

/** What detection remembers, folded from the monitor's stream (detection-state.ts). */
export interface DetectionMemory {
  /** The content changes are measured against: the first evaluated run's, then each recorded change's. */
  readonly baseline: { readonly fingerprint: string; readonly normalization_version: number } | null
  /** A new fingerprint seen on `runs` consecutive delivered runs, not yet recorded as a change. */
  readonly candidate: { readonly fingerprint: string; readonly runs: number } | null
  /** When a change last notified anyone; later changes within cooldown_seconds notify no one. */
  readonly last_notified_at: string | null
  readonly evaluated_runs: ReadonlySet<string>
  /** The baseline was cleared because the mode or selector changed or detection was turned back on. */
  readonly baseline_reset: boolean
}

export const EMPTY_MEMORY: DetectionMemory = { baseline: null, candidate: null, last_notified_at: null, evaluated_runs: new Set(), baseline_reset: false }

export type BaselineReason = 'first_run' | 'reset' | 'normalization_changed'

/** A delivered run's content: its fingerprint, or why it has none; `diff` is against the baseline when they differ. */
export type Observation =
  | { readonly ok: true; readonly fingerprint: string; readonly diff?: ContentDiff }
  | { readonly ok: false; readonly reason: 'selector_missing' | 'unreadable' }

export type Decision =
  | { readonly kind: 'ignore'; readonly why: 'disabled' | 'already_evaluated' }
  | { readonly kind: 'baseline'; readonly reason: BaselineReason; readonly fingerprint: string; readonly normalization_version: number }
  | { readonly kind: 'evaluated'; readonly health: 'ok' | 'selector_missing' | 'unreadable'; readonly fingerprint: string | null; readonly why: 'unchanged' | 'awaiting_consecutive' | 'below_min_change_ratio' | 'selector_missing' | 'unreadable' }
  | { readonly kind: 'change'; readonly fingerprint: string; readonly old_fingerprint: string; readonly diff: ContentDiff; readonly notified_channels: readonly NotifyChannel[] }
  /** The baseline differs but the caller computed no diff against it: compute it and decide again. */
  | { readonly kind: 'needs_diff'; readonly against: string }

export interface RunToDecide {
  readonly run_id: string
  readonly observation: Observation
  /** ISO instant from the Clock. */
  readonly now: string
}

const channelsOf = (rules: DetectionRules): NotifyChannel[] => [
  ...(rules.notify.webhook ? ['webhook' as const] : []),
  ...(rules.notify.email.length > 0 ? [rules.notify.digest ? 'digest' as const : 'email' as const] : []),
]

const withinCooldown = (rules: DetectionRules, memory: DetectionMemory, now: string) =>
  memory.last_notified_at !== null && rules.cooldown_seconds > 0
  && Date.parse(now) - Date.parse(memory.last_notified_at) < rules.cooldown_seconds * 1000

export const decideRun = (rules: DetectionRules, memory: DetectionMemory, run: RunToDecide): Decision => {
  if (!rules.enabled) return { kind: 'ignore', why: 'disabled' }
  if (memory.evaluated_runs.has(run.run_id)) return { kind: 'ignore', why: 'already_evaluated' }
  const seen = run.observation
  // Content the mode cannot read is no change, but it is not health `ok` either: the monitor compares nothing.
  if (!seen.ok) return { kind: 'evaluated', health: seen.reason, fingerprint: null, why: seen.reason }
  const baseline = memory.baseline
  if (baseline === null || baseline.normalization_version !== NORMALIZATION_VERSION) {
    const reason: BaselineReason = baseline !== null ? 'normalization_changed' : memory.baseline_reset ? 'reset' : 'first_run'
    return { kind: 'baseline', reason, fingerprint: seen.fingerprint, normalization_version: NORMALIZATION_VERSION }
  }
  if (seen.fingerprint === baseline.fingerprint) return { kind: 'evaluated', health: 'ok', fingerprint: seen.fingerprint, why: 'unchanged' }
  const runs = memory.candidate?.fingerprint === seen.fingerprint ? memory.candidate.runs + 1 : 1
  if (runs < rules.consecutive) return { kind: 'evaluated', health: 'ok', fingerprint: seen.fingerprint, why: 'awaiting_consecutive' }
  if (!seen.diff) return { kind: 'needs_diff', against: baseline.fingerprint }
  if (seen.diff.change_ratio < rules.min_change_ratio) {
    return { kind: 'evaluated', health: 'ok', fingerprint: seen.fingerprint, why: 'below_min_change_ratio' }
  }
  return {
    kind: 'change', fingerprint: seen.fingerprint, old_fingerprint: baseline.fingerprint, diff: seen.diff,
    notified_channels: withinCooldown(rules, memory, run.now) ? [] : channelsOf(rules),
  }
}
