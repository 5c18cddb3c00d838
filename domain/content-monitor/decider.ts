import { Either } from 'effect'
import type { Decider } from '../decider.js'
import { NotFound, StateConflict } from '../errors.js'
import type { ScrapeBackend } from '../scrape/events.js'
import {
  ContentMonitorAutoDisabled, ContentMonitorCreated, ContentMonitorRunFinished, ContentMonitorRunRequested, ContentMonitorRunStarted,
  ContentMonitorUpdated, type ContentMonitorEvent, type ContentMonitorStatus, type Rule, type Snapshot,
} from './events.js'
import { AUTO_DISABLE_AFTER_FAILURES } from './limits.js'
import type { ContentMonitorChanges, ContentMonitorFields } from './request.js'
import { evaluateRule, NO_MEMORY, remember, type RuleMemory } from './rules.js'

type RunPhase = 'pending' | 'running' | 'finished'

export type ContentMonitorState =
  | { readonly exists: false }
  | {
    readonly exists: true
    readonly monitor_id: string
    readonly user_id: string
    readonly org_id: string
    readonly url: string
    readonly backend: ScrapeBackend
    readonly status: ContentMonitorStatus
    readonly frequency_minutes: number
    readonly rule: Rule
    readonly created_at: string
    readonly memory: RuleMemory
    readonly consecutive_failures: number
    readonly runs: ReadonlyMap<string, RunPhase>
    /** Scheduled (not forced) runs and their instants: what moves `handled_up_to` once they leave `pending`. */
    readonly scheduled_instants: ReadonlyMap<string, string>
    /**
     * Scheduled instants up to here are handled (their run started or ended), as are those before the monitor was
     * created, reactivated or given a new frequency: the scheduler fires only later ones.
     */
    readonly handled_up_to: string
  }

/** What a finished run observed: a snapshot (an answer came), a failure, or a skip. */
export type RunResult =
  | { readonly _tag: 'Observed'; readonly snapshot: Snapshot; readonly needle_present: boolean | null }
  | { readonly _tag: 'Failed'; readonly error_code: string; readonly error_message: string; readonly status_code: number | null }
  | { readonly _tag: 'Skipped'; readonly reason: string }

export type ContentMonitorCommand =
  | { readonly _tag: 'CreateContentMonitor'; readonly monitor_id: string; readonly user_id: string; readonly org_id: string; readonly fields: ContentMonitorFields; readonly next_run_at: string; readonly now: string }
  | { readonly _tag: 'UpdateContentMonitor'; readonly monitor_id: string; readonly changes: ContentMonitorChanges; readonly next_run_at: string | null; readonly now: string }
  /** `next_run_at`: the monitor's next run after this request (what a run this request supersedes records). */
  | { readonly _tag: 'RequestRun'; readonly monitor_id: string; readonly run_id: string; readonly scheduled_at: string; readonly forced: boolean; readonly next_run_at: string | null; readonly now: string }
  | { readonly _tag: 'StartRun'; readonly monitor_id: string; readonly run_id: string; readonly now: string }
  | { readonly _tag: 'FinishRun'; readonly monitor_id: string; readonly run_id: string; readonly result: RunResult; readonly next_run_at: string | null; readonly now: string }

const withRun = (runs: ReadonlyMap<string, RunPhase>, runId: string, phase: RunPhase) => new Map(runs).set(runId, phase)
const later = (a: string, b: string | undefined) => (b !== undefined && Date.parse(b) > Date.parse(a) ? b : a)

/** Why a scheduled run that never started was closed. */
export const MISSED_RUN_CODE = 'missed'

/**
 * Scheduled runs still pending for an instant before the one now asked for: asked for ahead (or requested by a
 * scheduler that stopped before starting them) and their instant passed while no scheduler could start them. The
 * later instant's run takes their place, so they end `skipped` (`missed`) in the same append: no run stays pending.
 */
const supersededRuns = (state: Extract<ContentMonitorState, { exists: true }>, command: Extract<ContentMonitorCommand, { _tag: 'RequestRun' }>) =>
  [...state.scheduled_instants]
    .filter(([runId, instant]) => runId !== command.run_id && state.runs.get(runId) === 'pending' && Date.parse(instant) < Date.parse(command.scheduled_at))
    .map(([runId, instant]) => new ContentMonitorRunFinished({
      monitor_id: command.monitor_id, run_id: runId, outcome: 'skipped', change_summary: null, snapshot: null, needle_present: null,
      error_code: MISSED_RUN_CODE, error_message: `its instant (${instant}) passed before a scheduler could start it; the run of ${command.scheduled_at} took its place`,
      status_code: null, next_run_at: command.next_run_at, completed_at: command.now,
    }))

export const contentMonitorDecider: Decider<ContentMonitorCommand, ContentMonitorEvent, ContentMonitorState, NotFound | StateConflict> = {
  initialState: { exists: false },
  evolve: (state, event) => {
    if (event._tag === 'ContentMonitorCreated') {
      return {
        exists: true, monitor_id: event.monitor_id, user_id: event.user_id, org_id: event.org_id, url: event.url, backend: event.backend,
        status: 'active', frequency_minutes: event.frequency_minutes, rule: event.rule, created_at: event.created_at,
        memory: NO_MEMORY, consecutive_failures: 0, runs: new Map(), scheduled_instants: new Map(), handled_up_to: event.created_at,
      }
    }
    if (!state.exists) return state
    switch (event._tag) {
      case 'ContentMonitorUpdated': {
        const ruleChanged = event.rule !== undefined && JSON.stringify(event.rule) !== JSON.stringify(state.rule)
        // Instants missed while paused, or of the old frequency, are not caught up: the schedule restarts from here.
        const rescheduled = (event.status === 'active' && state.status !== 'active')
          || (event.frequency_minutes !== undefined && event.frequency_minutes !== state.frequency_minutes)
        return {
          ...state,
          ...(rescheduled ? { handled_up_to: later(state.handled_up_to, event.updated_at) } : {}),
          ...(event.frequency_minutes !== undefined ? { frequency_minutes: event.frequency_minutes } : {}),
          ...(event.status !== undefined ? { status: event.status } : {}),
          // A new rule starts from a new baseline of its own state (the needle may be another one).
          ...(event.rule !== undefined ? { rule: event.rule } : {}),
          ...(ruleChanged ? { memory: { ...state.memory, needlePresent: null } } : {}),
          // Reactivating starts the failure count over.
          ...(event.status === 'active' ? { consecutive_failures: 0 } : {}),
        }
      }
      case 'ContentMonitorRunRequested':
        return {
          ...state, runs: withRun(state.runs, event.run_id, 'pending'),
          ...(event.forced ? {} : { scheduled_instants: new Map(state.scheduled_instants).set(event.run_id, event.scheduled_at) }),
        }
      case 'ContentMonitorRunStarted':
        return { ...state, runs: withRun(state.runs, event.run_id, 'running'), handled_up_to: later(state.handled_up_to, state.scheduled_instants.get(event.run_id)) }
      case 'ContentMonitorRunFinished': {
        const runs = withRun(state.runs, event.run_id, 'finished')
        const handled_up_to = later(state.handled_up_to, state.scheduled_instants.get(event.run_id))
        if (event.outcome === 'skipped') return { ...state, runs, handled_up_to }
        if (event.outcome === 'failed') return { ...state, runs, handled_up_to, consecutive_failures: state.consecutive_failures + 1 }
        return { ...state, runs, handled_up_to, consecutive_failures: 0, memory: event.snapshot ? remember(state.memory, event.snapshot, event.needle_present) : state.memory }
      }
      case 'ContentMonitorAutoDisabled':
        return { ...state, status: 'disabled' }
    }
  },
  decide: (command, state) => {
    if (command._tag === 'CreateContentMonitor') {
      // Created by the request and again from its quota claim (the runner's repair): the first one stays.
      if (state.exists) return Either.right([])
      const { fields } = command
      return Either.right([new ContentMonitorCreated({
        monitor_id: command.monitor_id, user_id: command.user_id, org_id: command.org_id, name: fields.name ?? fields.url, url: fields.url,
        backend: fields.backend, frequency_minutes: fields.frequencyMinutes, rule: fields.rule, next_run_at: command.next_run_at, created_at: command.now,
      })])
    }
    if (!state.exists) return Either.left(new NotFound({ resource: 'content_monitor', id: command.monitor_id }))
    switch (command._tag) {
      case 'UpdateContentMonitor': {
        const { changes } = command
        return Either.right([new ContentMonitorUpdated({
          monitor_id: command.monitor_id,
          ...(changes.name !== undefined ? { name: changes.name } : {}),
          ...(changes.frequencyMinutes !== undefined ? { frequency_minutes: changes.frequencyMinutes } : {}),
          ...(changes.status !== undefined ? { status: changes.status } : {}),
          ...(changes.rule !== undefined ? { rule: changes.rule } : {}),
          next_run_at: command.next_run_at, updated_at: command.now,
        })])
      }
      case 'RequestRun': {
        const superseded = command.forced ? [] : supersededRuns(state, command)
        // The run of an instant is asked for once, however many times the request is repeated.
        if (state.runs.has(command.run_id)) return Either.right(superseded)
        if (!command.forced && state.status !== 'active') {
          return Either.left(new StateConflict({ code: 'monitor_not_active', message: `the monitor is ${state.status}; force a run or activate it` }))
        }
        return Either.right([...superseded, new ContentMonitorRunRequested({
          monitor_id: command.monitor_id, run_id: command.run_id, scheduled_at: command.scheduled_at, forced: command.forced, requested_at: command.now,
        })])
      }
      case 'StartRun':
        if (state.runs.get(command.run_id) !== 'pending') return Either.right([])
        return Either.right([new ContentMonitorRunStarted({ monitor_id: command.monitor_id, run_id: command.run_id, started_at: command.now })])
      case 'FinishRun': {
        const phase = state.runs.get(command.run_id)
        if (phase === undefined) return Either.left(new NotFound({ resource: 'content_monitor_run', id: command.run_id }))
        if (phase === 'finished') return Either.right([])
        const base = { monitor_id: command.monitor_id, run_id: command.run_id, next_run_at: command.next_run_at, completed_at: command.now }
        const { result } = command
        if (result._tag === 'Skipped') {
          return Either.right([new ContentMonitorRunFinished({
            ...base, outcome: 'skipped', change_summary: null, snapshot: null, needle_present: null, error_code: result.reason, error_message: null, status_code: null,
          })])
        }
        if (result._tag === 'Failed') {
          const failures = state.consecutive_failures + 1
          const finished = new ContentMonitorRunFinished({
            ...base, outcome: 'failed', change_summary: null, snapshot: null, needle_present: null, error_code: result.error_code, error_message: result.error_message,
            status_code: result.status_code,
          })
          return Either.right(failures >= AUTO_DISABLE_AFTER_FAILURES && state.status === 'active'
            ? [finished, new ContentMonitorAutoDisabled({ monitor_id: command.monitor_id, consecutive_failures: failures, disabled_at: command.now })]
            : [finished])
        }
        const verdict = evaluateRule(state.rule, state.memory, result.snapshot, result.needle_present)
        return Either.right([new ContentMonitorRunFinished({
          ...base, outcome: verdict.triggered ? 'triggered' : 'succeeded', change_summary: verdict.triggered ? verdict.summary : null,
          snapshot: result.snapshot, needle_present: result.needle_present, error_code: null, error_message: null, status_code: result.snapshot.statusCode,
        })])
      }
    }
  },
}
