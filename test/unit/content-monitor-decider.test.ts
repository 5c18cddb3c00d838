/** The content-monitor decider given/when/then: every command, and each rejection (not found, not active). */
import t from 'tap'
import { contentMonitorDecider, MISSED_RUN_CODE, type ContentMonitorCommand, type RunResult } from '../../domain/content-monitor/decider.js'
import {
  ContentMonitorAutoDisabled, ContentMonitorCreated, ContentMonitorRunFinished, ContentMonitorRunRequested, ContentMonitorRunStarted,
  ContentMonitorUpdated, type Rule, type Snapshot,
} from '../../domain/content-monitor/events.js'
import { AUTO_DISABLE_AFTER_FAILURES } from '../../domain/content-monitor/limits.js'
import { scenario } from '../helpers/given-when-then.js'

const given = scenario(t, contentMonitorDecider)
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString()
const ANY_CHANGE: Rule = { type: 'any_change', config: {} }
const M = 'm1'

const create: ContentMonitorCommand = {
  _tag: 'CreateContentMonitor', monitor_id: M, user_id: 'u1', org_id: 'o1', next_run_at: at(5), now: at(0),
  fields: { url: 'https://example.com/', backend: 'httpx', frequencyMinutes: 5, rule: ANY_CHANGE },
}
const created = new ContentMonitorCreated({
  monitor_id: M, user_id: 'u1', org_id: 'o1', name: 'https://example.com/', url: 'https://example.com/', backend: 'httpx',
  frequency_minutes: 5, rule: ANY_CHANGE, next_run_at: at(5), created_at: at(0),
})
const pause: ContentMonitorCommand = { _tag: 'UpdateContentMonitor', monitor_id: M, changes: { status: 'paused' }, next_run_at: null, now: at(1) }
const paused = new ContentMonitorUpdated({ monitor_id: M, status: 'paused', next_run_at: null, updated_at: at(1) })

const requestRun = (run: string, minute: number, forced = false): ContentMonitorCommand =>
  ({ _tag: 'RequestRun', monitor_id: M, run_id: run, scheduled_at: at(minute), forced, next_run_at: at(minute + 5), now: at(minute) })
const runRequested = (run: string, minute: number, forced = false) =>
  new ContentMonitorRunRequested({ monitor_id: M, run_id: run, scheduled_at: at(minute), forced, requested_at: at(minute) })
const start = (run: string, minute: number): ContentMonitorCommand => ({ _tag: 'StartRun', monitor_id: M, run_id: run, now: at(minute) })
const started = (run: string, minute: number) => new ContentMonitorRunStarted({ monitor_id: M, run_id: run, started_at: at(minute) })
const finish = (run: string, minute: number, result: RunResult): ContentMonitorCommand =>
  ({ _tag: 'FinishRun', monitor_id: M, run_id: run, result, next_run_at: at(minute + 5), now: at(minute) })

const snapshot = (hash: string, minute: number): Snapshot => ({ hash, preview: 'text', statusCode: 200, contentLength: 10, capturedAt: at(minute) })
const observed = (hash: string, minute: number): RunResult => ({ _tag: 'Observed', snapshot: snapshot(hash, minute), needle_present: null })
const FAILED: RunResult = { _tag: 'Failed', error_code: 'dns_error', error_message: 'no such host', status_code: null }
const finished = (run: string, minute: number, fields: Partial<ConstructorParameters<typeof ContentMonitorRunFinished>[0]>) => new ContentMonitorRunFinished({
  monitor_id: M, run_id: run, outcome: 'succeeded', change_summary: null, snapshot: null, needle_present: null, error_code: null, error_message: null,
  status_code: null, next_run_at: at(minute + 5), completed_at: at(minute), ...fields,
})
const failedRun = (run: string, minute: number) =>
  finished(run, minute, { outcome: 'failed', error_code: 'dns_error', error_message: 'no such host' })
/** Run `run` requested, started and failed at `minute`. */
const failedRunHistory = (run: string, minute: number) => [runRequested(run, minute), started(run, minute), failedRun(run, minute)]

// ---- CreateContentMonitor ----
given([]).when(create).then([created], 'CreateContentMonitor records the monitor (named after its URL without a name)')
given([created]).when({ ...create, now: at(3) }).then([], 'CreateContentMonitor again (the runner\'s repair from the claim): the first stays')

// ---- UpdateContentMonitor ----
given([created]).when(pause).then([paused], 'UpdateContentMonitor records only the fields given')
given([]).when(pause).then({ _tag: 'NotFound', resource: 'content_monitor', id: M }, 'UpdateContentMonitor of an unknown monitor is not found')

// ---- RequestRun ----
given([created]).when(requestRun('r5', 5)).then([runRequested('r5', 5)], 'RequestRun of an active monitor records the run')
given([created, runRequested('r5', 5)]).when(requestRun('r5', 5)).then([], 'RequestRun repeated for one instant records it once')
given([created, paused]).when(requestRun('r5', 5))
  .then({ _tag: 'StateConflict', code: 'monitor_not_active' }, 'RequestRun of a paused monitor (not forced) conflicts')
given([created, paused]).when(requestRun('f2', 2, true)).then([runRequested('f2', 2, true)], 'a forced RequestRun runs a paused monitor too')
given([created, runRequested('r5', 5)]).when(requestRun('r10', 10)).then([
  finished('r5', 10, { outcome: 'skipped', error_code: MISSED_RUN_CODE, error_message: `its instant (${at(5)}) passed before a scheduler could start it; the run of ${at(10)} took its place` }),
  runRequested('r10', 10),
], 'a scheduled run still pending when a later instant is asked for ends skipped (missed) in the same append')
given([]).when(requestRun('r5', 5)).then({ _tag: 'NotFound', resource: 'content_monitor' }, 'RequestRun of an unknown monitor is not found')

// ---- StartRun ----
given([created, runRequested('r5', 5)]).when(start('r5', 6)).then([started('r5', 6)], 'StartRun of a pending run records it')
given([created, runRequested('r5', 5), started('r5', 6)]).when(start('r5', 7)).then([], 'StartRun of a running run records nothing')
given([created]).when(start('r5', 6)).then([], 'StartRun of a run never requested records nothing')
given([]).when(start('r5', 6)).then({ _tag: 'NotFound', resource: 'content_monitor' }, 'StartRun on an unknown monitor is not found')

// ---- FinishRun ----
const running = [created, runRequested('r5', 5), started('r5', 5)]
given(running).when(finish('r5', 6, observed('n1:aaa', 6)))
  .then([finished('r5', 6, { snapshot: snapshot('n1:aaa', 6), status_code: 200 })], 'FinishRun with a first answer succeeds (it is the baseline)')
given([...running, finished('r5', 6, { snapshot: snapshot('n1:aaa', 6), status_code: 200 }), runRequested('r10', 10), started('r10', 10)])
  .when(finish('r10', 11, observed('n1:bbb', 11)))
  .then([finished('r10', 11, { outcome: 'triggered', change_summary: 'the page content changed', snapshot: snapshot('n1:bbb', 11), status_code: 200 })],
    'FinishRun with a changed answer triggers the rule')
given(running).when(finish('r5', 6, { _tag: 'Skipped', reason: 'plan_limit' }))
  .then([finished('r5', 6, { outcome: 'skipped', error_code: 'plan_limit' })], 'FinishRun skipped records why, at no cost')
given(running).when(finish('r5', 6, FAILED)).then([failedRun('r5', 6)], 'FinishRun failed records the error')
const failures = Array.from({ length: AUTO_DISABLE_AFTER_FAILURES - 1 }, (_, i) => failedRunHistory(`x${i}`, i + 1)).flat()
given([created, ...failures, runRequested('r9', 9), started('r9', 9)]).when(finish('r9', 9, FAILED))
  .then([failedRun('r9', 9), new ContentMonitorAutoDisabled({ monitor_id: M, consecutive_failures: AUTO_DISABLE_AFTER_FAILURES, disabled_at: at(9) })],
    `the ${AUTO_DISABLE_AFTER_FAILURES}th failure in a row disables the monitor`)
given([...running, finished('r5', 6, { snapshot: snapshot('n1:aaa', 6), status_code: 200 })]).when(finish('r5', 7, FAILED))
  .then([], 'FinishRun of a finished run records nothing')
given([created]).when(finish('r5', 6, FAILED)).then({ _tag: 'NotFound', resource: 'content_monitor_run', id: 'r5' }, 'FinishRun of a run never requested is not found')
given([]).when(finish('r5', 6, FAILED)).then({ _tag: 'NotFound', resource: 'content_monitor' }, 'FinishRun on an unknown monitor is not found')
