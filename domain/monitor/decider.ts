import { Either } from 'effect'
import type { Decider } from '../decider.js'
import { NotFound, StateConflict, ValidationFailed } from '../errors.js'
import type { JobSpec } from '../job/spec.js'
import type { Plan } from '../plans.js'
import { noiseOf, type DetectionConfig } from './detection-config.js'
import { countProblems, planProblems, type ActiveMonitors } from './plan-rules.js'
import {
  MonitorCreated, MonitorDeleted, MonitorFireOverlapped, MonitorPaused, MonitorResumed, MonitorRunCompleted, MonitorRunDequeued,
  MonitorRunFired, MonitorRunMinted, MonitorRunSkipped, MonitorUpdated,
  type CompletionStatus, type MonitorEvent, type OverlapPolicy, type PauseReason,
} from './events.js'

/** Consecutive non-delivering runs (blocked, failed, error) that pause a monitor (SPEC 8). */
export const AUTO_PAUSE_AFTER = 3

/** What a monitor is made of: its fields as created and updated. */
export interface MonitorFields {
  readonly name: string
  readonly cron: string
  readonly timezone: string
  readonly job: JobSpec
  readonly overlap_policy: OverlapPolicy
  readonly detection: DetectionConfig
  readonly tags: readonly string[]
}

export type MonitorState =
  | { readonly status: 'none' }
  | (MonitorFields & {
    readonly status: 'active' | 'paused' | 'deleted'
    readonly monitor_id: string
    readonly org_id: string
    readonly paused_reason: PauseReason | null
    /** Every scheduled instant up to here is handled (fired, skipped, or before creation, resume or a schedule change). */
    readonly handled_up_to: string
    /** Runs fired and not yet completed or skipped, with their job once minted. */
    readonly in_flight: Readonly<Record<string, { readonly job_id: string | null }>>
    /** The run buffer_one holds until the running one completes. */
    readonly queued: string | null
    readonly failure_streak: number
  })

type Live = Exclude<MonitorState, { status: 'none' }>

export type MonitorCommand =
  | { readonly _tag: 'CreateMonitor'; readonly monitor_id: string; readonly org_id: string; readonly fields: MonitorFields; readonly now: string }
  | { readonly _tag: 'UpdateMonitor'; readonly monitor_id: string; readonly changes: Partial<MonitorFields>; readonly now: string }
  | { readonly _tag: 'PauseMonitor'; readonly monitor_id: string; readonly reason: PauseReason; readonly detail: string; readonly now: string }
  /** Resumes a paused monitor only when it fits `plan` beside the organization's `others` active monitors. */
  | { readonly _tag: 'ResumeMonitor'; readonly monitor_id: string; readonly plan: Plan; readonly others: ActiveMonitors; readonly now: string }
  /** After a plan change: pauses (reason `plan`) an active monitor that no longer fits `plan` beside the `kept` ones. */
  | { readonly _tag: 'FitPlan'; readonly monitor_id: string; readonly plan: Plan; readonly kept: ActiveMonitors; readonly now: string }
  | { readonly _tag: 'DeleteMonitor'; readonly monitor_id: string; readonly now: string }
  /** A scheduled instant (with the earlier ones it coalesces) or a manual run; `run_id` names the run it would start. */
  | { readonly _tag: 'FireRun'; readonly monitor_id: string; readonly run_id: string; readonly trigger: 'schedule' | 'manual'; readonly scheduled_for: string; readonly missed: number; readonly now: string }
  | { readonly _tag: 'RecordMint'; readonly monitor_id: string; readonly run_id: string; readonly job_id: string; readonly now: string }
  /** The run's job was refused at admission (`refusal`: the AdmissionRejected's code and message): the run is skipped, free. */
  | { readonly _tag: 'SkipRun'; readonly monitor_id: string; readonly run_id: string; readonly refusal: { readonly code: string; readonly message: string }; readonly now: string }
  | { readonly _tag: 'CompleteRun'; readonly monitor_id: string; readonly run_id: string; readonly job_id: string | null; readonly status: CompletionStatus; readonly detail: string; readonly now: string }

export type MonitorError = NotFound | StateConflict | ValidationFailed

/** Admission codes that mean the run's engine is not in the plan; every other refusal is a quota (credits, jobs). SPEC 8. */
const NOT_ALLOWED = new Set(['plan_limit_job_type_not_allowed'])

/** How a run refused at admission is recorded: skipped, at no cost, as not allowed by the plan or over a quota. */
export const skipStatusOf = (code: string) => (NOT_ALLOWED.has(code) ? 'skipped_not_allowed' as const : 'skipped_quota' as const)

/** The plan rules a monitor breaks beside `others` active monitors: its own first (SPEC 8), then the counts. */
const misfits = (state: Live, plan: Plan, others: ActiveMonitors, now: string) => {
  const own = planProblems(state, plan, new Date(now))
  return own.length > 0 ? own : countProblems(state.detection.enabled, others, plan)
}

const without = <V>(record: Readonly<Record<string, V>>, key: string): Record<string, V> => {
  const { [key]: _removed, ...rest } = record
  return rest
}

const later = (a: string, b: string) => (Date.parse(a) >= Date.parse(b) ? a : b)

const evolveLive = (state: Live, event: MonitorEvent): Live => {
  switch (event._tag) {
    case 'MonitorUpdated': {
      const { _tag, monitor_id: _id, baseline_reset: _reset, updated_at: at, ...changes } = event
      const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as Partial<MonitorFields>
      // A new schedule starts now: instants of the new cron before the change are not owed.
      const rescheduled = event.cron !== undefined || event.timezone !== undefined
      return { ...state, ...defined, handled_up_to: rescheduled ? later(state.handled_up_to, at) : state.handled_up_to }
    }
    case 'MonitorPaused':
      return { ...state, status: 'paused', paused_reason: event.reason }
    case 'MonitorResumed':
      // Instants passed while paused are not owed.
      return { ...state, status: 'active', paused_reason: null, failure_streak: 0, handled_up_to: later(state.handled_up_to, event.resumed_at) }
    case 'MonitorDeleted':
      return { ...state, status: 'deleted' }
    case 'MonitorRunFired':
      return {
        ...state,
        handled_up_to: event.trigger === 'schedule' ? later(state.handled_up_to, event.scheduled_for) : state.handled_up_to,
        ...(event.queued ? { queued: event.run_id } : { in_flight: { ...state.in_flight, [event.run_id]: { job_id: null } } }),
      }
    case 'MonitorFireOverlapped':
      return { ...state, handled_up_to: event.trigger === 'schedule' ? later(state.handled_up_to, event.scheduled_for) : state.handled_up_to }
    case 'MonitorRunDequeued':
      return { ...state, queued: null, in_flight: { ...state.in_flight, [event.run_id]: { job_id: null } } }
    case 'MonitorRunMinted':
      return state.in_flight[event.run_id] ? { ...state, in_flight: { ...state.in_flight, [event.run_id]: { job_id: event.job_id } } } : state
    case 'MonitorRunSkipped':
      return { ...state, in_flight: without(state.in_flight, event.run_id) }
    case 'MonitorRunCompleted': {
      const streak = event.status === 'delivered' ? 0 : state.failure_streak + 1
      return { ...state, in_flight: without(state.in_flight, event.run_id), failure_streak: streak }
    }
    default:
      // Detection's events and any later addition leave the lifecycle as it is.
      return state
  }
}

const ok = (...events: MonitorEvent[]) => Either.right(events)
const nothing = Either.right([] as MonitorEvent[])

/** After a run ends, the run buffer_one held starts. */
const dequeue = (state: Live, runId: string, now: string): MonitorEvent[] =>
  state.queued !== null && state.queued !== runId ? [new MonitorRunDequeued({ monitor_id: state.monitor_id, run_id: state.queued, at: now })] : []

const fire = (state: Live, command: Extract<MonitorCommand, { _tag: 'FireRun' }>) => {
  if (state.status !== 'active') {
    return command.trigger === 'manual'
      ? Either.left(new StateConflict({ code: 'monitor_paused', message: 'the monitor is paused; resume it to run it' }))
      : nothing
  }
  if (command.trigger === 'schedule' && Date.parse(command.scheduled_for) <= Date.parse(state.handled_up_to)) return nothing
  const base = { monitor_id: state.monitor_id, scheduled_for: command.scheduled_for, trigger: command.trigger, missed: command.missed }
  const busy = Object.keys(state.in_flight).length > 0
  const fired = (queued: boolean) => new MonitorRunFired({ ...base, run_id: command.run_id, fired_at: command.now, queued })
  if (!busy || state.overlap_policy === 'allow') return ok(fired(false))
  if (state.overlap_policy === 'skip') return ok(new MonitorFireOverlapped({ ...base, outcome: 'skipped', at: command.now }))
  if (state.queued === null) return ok(fired(true))
  return ok(new MonitorFireOverlapped({ ...base, outcome: 'dropped', at: command.now }))
}

const decideLive = (command: MonitorCommand, state: Live): Either.Either<readonly MonitorEvent[], MonitorError> => {
  const id = state.monitor_id
  switch (command._tag) {
    case 'CreateMonitor':
      return Either.left(new StateConflict({ code: 'monitor_exists', message: `monitor ${id} already exists` }))
    case 'UpdateMonitor': {
      const changes = Object.fromEntries(Object.entries(command.changes).filter(([k, v]) => v !== undefined && JSON.stringify(v) !== JSON.stringify(state[k as keyof MonitorFields])))
      if (Object.keys(changes).length === 0) return nothing
      const detection = command.changes.detection
      // Other steps of noise read other lines: comparing them with the old baseline would alert on the noise itself.
      const baselineReset = detection !== undefined && (detection.mode !== state.detection.mode || detection.selector !== state.detection.selector
        || JSON.stringify(noiseOf(detection)) !== JSON.stringify(noiseOf(state.detection)))
      return ok(new MonitorUpdated({ monitor_id: id, ...changes, baseline_reset: baselineReset, updated_at: command.now }))
    }
    case 'PauseMonitor':
      return state.status === 'paused' ? nothing : ok(new MonitorPaused({ monitor_id: id, org_id: state.org_id, reason: command.reason, detail: command.detail, paused_at: command.now }))
    case 'ResumeMonitor': {
      if (state.status === 'active') return nothing
      const problems = misfits(state, command.plan, command.others, command.now)
      if (problems.length > 0) return Either.left(new ValidationFailed({ errors: problems }))
      return ok(new MonitorResumed({ monitor_id: id, resumed_at: command.now }))
    }
    case 'FitPlan': {
      if (state.status !== 'active') return nothing
      const problems = misfits(state, command.plan, command.kept, command.now)
      if (problems.length === 0) return nothing
      return ok(new MonitorPaused({ monitor_id: id, org_id: state.org_id, reason: 'plan', detail: problems.map((p) => p.message).join('; '), paused_at: command.now }))
    }
    case 'DeleteMonitor':
      return ok(new MonitorDeleted({ monitor_id: id, deleted_at: command.now }))
    case 'FireRun':
      return fire(state, command)
    case 'RecordMint': {
      const run = state.in_flight[command.run_id]
      return run && run.job_id === null ? ok(new MonitorRunMinted({ monitor_id: id, run_id: command.run_id, job_id: command.job_id, minted_at: command.now })) : nothing
    }
    case 'SkipRun': {
      const run = state.in_flight[command.run_id]
      if (!run || run.job_id !== null) return nothing
      return ok(
        new MonitorRunSkipped({
          monitor_id: id, org_id: state.org_id, run_id: command.run_id, status: skipStatusOf(command.refusal.code),
          detail: `${command.refusal.code}: ${command.refusal.message}`, skipped_at: command.now,
        }),
        ...dequeue(state, command.run_id, command.now),
      )
    }
    case 'CompleteRun': {
      if (!state.in_flight[command.run_id]) return nothing
      const completed = new MonitorRunCompleted({ monitor_id: id, run_id: command.run_id, job_id: command.job_id, status: command.status, detail: command.detail, completed_at: command.now })
      const streak = command.status === 'delivered' ? 0 : state.failure_streak + 1
      const pause = streak >= AUTO_PAUSE_AFTER && state.status === 'active'
        ? [new MonitorPaused({ monitor_id: id, org_id: state.org_id, reason: 'failures', detail: `${streak} consecutive runs did not deliver; the last: ${command.status}: ${command.detail}`, paused_at: command.now })]
        : []
      return ok(completed, ...pause, ...dequeue(state, command.run_id, command.now))
    }
  }
}

export const monitorDecider: Decider<MonitorCommand, MonitorEvent, MonitorState, MonitorError> = {
  initialState: { status: 'none' },
  evolve: (state, event) => {
    if (event._tag === 'MonitorCreated') {
      const { _tag, created_at: at, ...fields } = event
      return {
        ...fields, status: 'active', paused_reason: null, handled_up_to: at, in_flight: {}, queued: null, failure_streak: 0,
      }
    }
    return state.status === 'none' ? state : evolveLive(state, event)
  },
  decide: (command, state) => {
    if (command._tag === 'CreateMonitor') {
      if (state.status !== 'none') return Either.left(new StateConflict({ code: 'monitor_exists', message: `monitor ${command.monitor_id} already exists` }))
      return ok(new MonitorCreated({ monitor_id: command.monitor_id, org_id: command.org_id, ...command.fields, created_at: command.now }))
    }
    if (state.status === 'deleted') {
      // The runs of a deleted monitor end quietly, and a scheduler that raced the deletion fires nothing.
      const quiet = command._tag === 'RecordMint' || command._tag === 'SkipRun' || command._tag === 'CompleteRun' || (command._tag === 'FireRun' && command.trigger === 'schedule')
      if (quiet) return nothing
    }
    if (state.status === 'none' || state.status === 'deleted') return Either.left(new NotFound({ resource: 'monitor', id: command.monitor_id }))
    return decideLive(command, state)
  },
}
