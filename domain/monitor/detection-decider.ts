/**
 * Detection's decider over a monitor's stream: what detection remembers (baseline, consecutive candidate, cooldown,
 * changes and what was mailed) and the events the detector appends. It reads the monitor's own lifecycle events
 * for the detection block and never writes them. Time, ids and diffs arrive inside commands.
 */
import { Either } from 'effect'
import type { Decider } from '../decider.js'
import { decideRun, EMPTY_MEMORY, type DetectionMemory, type Observation } from '../detection/decide.js'
import { fingerprintVersion } from '../detection/fingerprint.js'
import type { DetectionConfig } from './detection-config.js'
import { ChangeDetected, ChangeEmailSent, ChangeSummarized, ChangeSummaryUnavailable, DigestSent, MonitorBaselineRecorded, MonitorEmailUnsubscribed, MonitorRunEvaluated } from './detection-events.js'
import type { MonitorEvent } from './events.js'

export interface ChangeMemo {
  readonly change_id: string
  readonly run_id: string
  readonly job_id: string
  readonly detected_at: string
  readonly notified_channels: readonly string[]
  readonly change_ratio: number | null
  readonly has_diff: boolean
  readonly diff_key: string
  /** A summary was recorded, or recorded as unavailable: nothing more is decided about it. */
  readonly summary_settled: boolean
  readonly summary?: string
}

export interface DetectionState {
  readonly monitor: { readonly org_id: string; readonly name: string; readonly timezone: string; readonly target_url: string; readonly detection: DetectionConfig } | null
  readonly deleted: boolean
  readonly memory: DetectionMemory
  readonly changes: ReadonlyMap<string, ChangeMemo>
  /** `<change_id> <recipient>` of per-change e-mails sent. */
  readonly emailed: ReadonlySet<string>
  /** `<recipient> <period>` of digests sent. */
  readonly digests: ReadonlySet<string>
  readonly unsubscribed: ReadonlySet<string>
}

export const INITIAL_DETECTION_STATE: DetectionState = {
  monitor: null, deleted: false, memory: EMPTY_MEMORY, changes: new Map(), emailed: new Set(), digests: new Set(), unsubscribed: new Set(),
}

export type DetectionCommand =
  | {
    readonly _tag: 'EvaluateRun'
    readonly monitor_id: string
    readonly run_id: string
    readonly job_id: string
    readonly observation: Observation
    /** The baseline fingerprint `observation.diff` was computed against. */
    readonly diff_against: string | null
    readonly change_id: string
    readonly diff_key: string
    readonly now: string
  }
  | { readonly _tag: 'RecordSummary'; readonly monitor_id: string; readonly change_id: string; readonly summary: string; readonly summarizer: string; readonly now: string }
  | { readonly _tag: 'RecordNoSummary'; readonly monitor_id: string; readonly change_id: string; readonly reason: 'switched_off' | 'failed'; readonly now: string }
  | { readonly _tag: 'RecordChangeEmail'; readonly monitor_id: string; readonly change_id: string; readonly recipient: string; readonly now: string }
  | { readonly _tag: 'RecordDigest'; readonly monitor_id: string; readonly recipient: string; readonly period: string; readonly change_ids: readonly string[]; readonly now: string }
  | { readonly _tag: 'Unsubscribe'; readonly monitor_id: string; readonly recipient: string; readonly now: string }

export type DetectionError =
  | { readonly _tag: 'NeedsDiff'; readonly against: string }
  | { readonly _tag: 'MonitorGone'; readonly monitor_id: string }

const added = <T>(set: ReadonlySet<T>, item: T): ReadonlySet<T> => new Set([...set, item])

const evaluated = (memory: DetectionMemory, runId: string): DetectionMemory => ({ ...memory, evaluated_runs: added(memory.evaluated_runs, runId) })

const withMemory = (state: DetectionState, change: (memory: DetectionMemory) => DetectionMemory): DetectionState =>
  ({ ...state, memory: change(state.memory) })

/** Cleared baseline: the next delivered run records a new one instead of alerting. */
const reset = (memory: DetectionMemory): DetectionMemory => ({ ...memory, baseline: null, candidate: null, baseline_reset: true })

export const evolveDetection = (state: DetectionState, event: MonitorEvent): DetectionState => {
  switch (event._tag) {
    case 'MonitorCreated':
      return { ...state, monitor: { org_id: event.org_id, name: event.name, timezone: event.timezone, target_url: event.job.target_url, detection: event.detection } }
    case 'MonitorUpdated': {
      if (!state.monitor) return state
      const before = state.monitor.detection
      const monitor = {
        ...state.monitor,
        ...(event.name !== undefined ? { name: event.name } : {}),
        ...(event.timezone !== undefined ? { timezone: event.timezone } : {}),
        ...(event.job !== undefined ? { target_url: event.job.target_url } : {}),
        ...(event.detection !== undefined ? { detection: event.detection } : {}),
      }
      // Turned back on: what changed while it was off is not news, so it starts from a fresh baseline.
      const reEnabled = !before.enabled && monitor.detection.enabled
      const next = { ...state, monitor }
      return event.baseline_reset || reEnabled ? withMemory(next, reset) : next
    }
    case 'MonitorDeleted':
      return { ...state, deleted: true }
    case 'MonitorBaselineRecorded':
      return withMemory(state, (memory) => ({
        ...evaluated(memory, event.run_id), baseline: { fingerprint: event.fingerprint, normalization_version: event.normalization_version },
        candidate: null, baseline_reset: false,
      }))
    case 'MonitorRunEvaluated':
      return withMemory(state, (memory) => {
        const fingerprint = event.fingerprint
        const differs = fingerprint !== null && memory.baseline !== null && fingerprint !== memory.baseline.fingerprint
        const candidate = !differs ? null
          : { fingerprint, runs: memory.candidate?.fingerprint === fingerprint ? memory.candidate.runs + 1 : 1 }
        return { ...evaluated(memory, event.run_id), candidate }
      })
    case 'ChangeDetected': {
      const next = withMemory(state, (memory) => ({
        ...evaluated(memory, event.run_id),
        baseline: { fingerprint: event.new_fingerprint, normalization_version: fingerprintVersion(event.new_fingerprint) },
        candidate: null,
        last_notified_at: event.notified_channels.length > 0 ? event.detected_at : memory.last_notified_at,
      }))
      const changes = new Map(state.changes)
      changes.set(event.change_id, {
        change_id: event.change_id, run_id: event.run_id, job_id: event.job_id, detected_at: event.detected_at, notified_channels: event.notified_channels,
        change_ratio: event.change_ratio, has_diff: event.has_diff, diff_key: event.diff_key, summary_settled: false,
      })
      return { ...next, changes }
    }
    case 'ChangeSummarized': {
      const memo = state.changes.get(event.change_id)
      if (!memo) return state
      const changes = new Map(state.changes)
      changes.set(event.change_id, { ...memo, summary_settled: true, summary: event.summary })
      return { ...state, changes }
    }
    case 'ChangeSummaryUnavailable': {
      const memo = state.changes.get(event.change_id)
      if (!memo) return state
      const changes = new Map(state.changes)
      changes.set(event.change_id, { ...memo, summary_settled: true })
      return { ...state, changes }
    }
    case 'ChangeEmailSent':
      return { ...state, emailed: added(state.emailed, `${event.change_id} ${event.recipient}`) }
    case 'DigestSent':
      return { ...state, digests: added(state.digests, `${event.recipient} ${event.period}`) }
    case 'MonitorEmailUnsubscribed':
      return { ...state, unsubscribed: added(state.unsubscribed, event.recipient.toLowerCase()) }
    default:
      return state
  }
}

const evaluate = (command: Extract<DetectionCommand, { _tag: 'EvaluateRun' }>, state: DetectionState): Either.Either<readonly MonitorEvent[], DetectionError> => {
  const monitor = state.monitor
  if (!monitor || state.deleted) return Either.left({ _tag: 'MonitorGone', monitor_id: command.monitor_id })
  const baseline = state.memory.baseline?.fingerprint ?? null
  // A diff against anything but the current baseline is not this change's diff.
  const observation: Observation = command.observation.ok && command.diff_against !== baseline
    ? { ok: true, fingerprint: command.observation.fingerprint }
    : command.observation
  const decision = decideRun(monitor.detection, state.memory, { run_id: command.run_id, observation, now: command.now })
  const base = { monitor_id: command.monitor_id, run_id: command.run_id }
  switch (decision.kind) {
    case 'ignore':
      return Either.right([])
    case 'needs_diff':
      return Either.left({ _tag: 'NeedsDiff', against: decision.against })
    case 'baseline':
      return Either.right([new MonitorBaselineRecorded({ ...base, fingerprint: decision.fingerprint, normalization_version: decision.normalization_version, reason: decision.reason, recorded_at: command.now })])
    case 'evaluated':
      return Either.right([new MonitorRunEvaluated({ ...base, health: decision.health, fingerprint: decision.fingerprint, outcome: decision.why, checked_at: command.now })])
    case 'change':
      return Either.right([new ChangeDetected({
        ...base, change_id: command.change_id, job_id: command.job_id, old_fingerprint: decision.old_fingerprint, new_fingerprint: decision.fingerprint,
        change_ratio: decision.diff.change_ratio, has_diff: decision.diff.lines.length > 0, diff_key: command.diff_key,
        diff_lines: decision.diff.lines.length, notified_channels: [...decision.notified_channels], detected_at: command.now,
      })])
  }
}

export const detectionDecider: Decider<DetectionCommand, MonitorEvent, DetectionState, DetectionError> = {
  initialState: INITIAL_DETECTION_STATE,
  evolve: evolveDetection,
  decide: (command, state) => {
    switch (command._tag) {
      case 'EvaluateRun':
        return evaluate(command, state)
      case 'RecordSummary': {
        const memo = state.changes.get(command.change_id)
        if (!memo || memo.summary_settled) return Either.right([])
        return Either.right([new ChangeSummarized({ monitor_id: command.monitor_id, change_id: command.change_id, summary: command.summary, summarizer: command.summarizer, summarized_at: command.now })])
      }
      case 'RecordNoSummary': {
        const memo = state.changes.get(command.change_id)
        if (!memo || memo.summary_settled) return Either.right([])
        return Either.right([new ChangeSummaryUnavailable({ monitor_id: command.monitor_id, change_id: command.change_id, reason: command.reason, recorded_at: command.now })])
      }
      case 'RecordChangeEmail':
        return Either.right(state.emailed.has(`${command.change_id} ${command.recipient}`) ? []
          : [new ChangeEmailSent({ monitor_id: command.monitor_id, change_id: command.change_id, recipient: command.recipient, sent_at: command.now })])
      case 'RecordDigest':
        return Either.right(state.digests.has(`${command.recipient} ${command.period}`) ? []
          : [new DigestSent({ monitor_id: command.monitor_id, recipient: command.recipient, period: command.period, change_ids: [...command.change_ids], sent_at: command.now })])
      case 'Unsubscribe':
        if (!state.monitor) return Either.left({ _tag: 'MonitorGone', monitor_id: command.monitor_id })
        return Either.right(state.unsubscribed.has(command.recipient.toLowerCase()) ? []
          : [new MonitorEmailUnsubscribed({ monitor_id: command.monitor_id, recipient: command.recipient, unsubscribed_at: command.now })])
    }
  },
}
