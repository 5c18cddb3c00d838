import type { Test } from 'tap'
import { handle } from '../../../commands/handle.js'
import { contentMonitorDecider, type ContentMonitorCommand, type RunResult } from '../../../domain/content-monitor/decider.js'
import type { Snapshot } from '../../../domain/content-monitor/events.js'
import { AUTO_DISABLE_AFTER_FAILURES } from '../../../domain/content-monitor/limits.js'
import { fingerprintOf } from '../../../domain/detection/fingerprint.js'
import { STREAMS } from '../../../domain/streams.js'
import type { Doc } from '../../../ports/document-store.js'
import type { RecordedEvent } from '../../../ports/event-store.js'
import { memoryServices, TEST_METADATA } from '../../helpers/memory-services.js'
import type { Documents, ProjectionSpecFile } from '../../helpers/projection-spec.js'

// ---- content monitors: one whose page changes (a baseline, a quiet run, a triggered forced run), renamed and
// re-timed; one whose page keeps failing until the service disables it ----

const ORG = 'org-c'
const USER = 'user-c'
const at = (minute: number) => new Date(Date.UTC(2026, 4, 1, 8, minute)).toISOString()
const snapshot = (text: string, statusCode: number, minute: number): Snapshot => ({
  hash: fingerprintOf([text]), preview: text, statusCode, contentLength: text.length, capturedAt: at(minute),
})
const BEFORE = snapshot('Price: 10 EUR', 200, 10)
const SAME = snapshot('Price: 10 EUR', 200, 20)
const CHANGED = snapshot('Price: 12 EUR', 200, 23)

type WithoutMonitorId<C> = C extends unknown ? Omit<C, 'monitor_id'> : never

const recordHistory = async (): Promise<readonly RecordedEvent[]> => {
  const { run, events } = memoryServices()
  const monitor = (id: string) => (c: WithoutMonitorId<ContentMonitorCommand>) =>
    run(handle(contentMonitorDecider, STREAMS['content-monitor'].stream(id), { ...c, monitor_id: id } as ContentMonitorCommand,
      { org_id: ORG, metadata: { ...TEST_METADATA, actor: 'scheduler' } }))
  /** A run of the monitor requested, started and finished, as the scheduler and the recorder drive it. */
  const runOnce = async (id: string, runId: string, minute: number, result: RunResult, nextRunAt: string | null, forced = false) => {
    await monitor(id)({ _tag: 'RequestRun', run_id: runId, scheduled_at: at(minute), forced, next_run_at: nextRunAt, now: at(minute) })
    await monitor(id)({ _tag: 'StartRun', run_id: runId, now: at(minute) })
    await monitor(id)({ _tag: 'FinishRun', run_id: runId, result, next_run_at: nextRunAt, now: at(minute + 1) })
  }
  const observed = (snap: Snapshot): RunResult => ({ _tag: 'Observed', snapshot: snap, needle_present: null })
  const failed: RunResult = { _tag: 'Failed', error_code: 'dns_error', error_message: 'the host name does not resolve', status_code: null }

  await monitor('cm1')({
    _tag: 'CreateContentMonitor', user_id: USER, org_id: ORG, next_run_at: at(10), now: at(0),
    fields: { name: 'Price page', url: 'https://example.com/price', backend: 'httpx', frequencyMinutes: 10, rule: { type: 'any_change', config: {} } },
  })
  await monitor('cm2')({
    _tag: 'CreateContentMonitor', user_id: USER, org_id: ORG, next_run_at: at(5), now: at(1),
    fields: { url: 'https://gone.example.com/', backend: 'playwright', frequencyMinutes: 5, rule: { type: 'text_appeared', config: { needle: 'In stock' } } },
  })
  await runOnce('cm2', 'cm2-r1', 5, failed, at(10))
  await runOnce('cm1', 'cm1-r1', 10, observed(BEFORE), at(20))
  await runOnce('cm2', 'cm2-r2', 10, failed, at(15))
  await monitor('cm1')({ _tag: 'UpdateContentMonitor', changes: { name: 'Widget price', frequencyMinutes: 15 }, next_run_at: at(25), now: at(12) })
  // The target answered, then the job failed on our side: a failed run that keeps the status it saw.
  await runOnce('cm2', 'cm2-r3', 15, { _tag: 'Failed', error_code: 'response_too_large', error_message: 'the body is too large', status_code: 200 }, at(20))
  await runOnce('cm1', 'cm1-r2', 20, observed(SAME), at(35))
  // A run asked for now: the page changed, so the rule fires.
  await runOnce('cm1', 'cm1-r3', 22, observed(CHANGED), at(35), true)
  await runOnce('cm2', 'cm2-r4', 20, failed, at(25))
  // The fifth failure in a row disables the monitor.
  await runOnce('cm2', 'cm2-r5', 25, failed, at(30))
  // A run requested while the monitor was active, finished as skipped: it neither counts as a failure nor resets the count.
  await monitor('cm1')({ _tag: 'RequestRun', run_id: 'cm1-r4', scheduled_at: at(35), forced: false, next_run_at: at(50), now: at(35) })
  await monitor('cm1')({ _tag: 'FinishRun', run_id: 'cm1-r4', result: { _tag: 'Skipped', reason: 'plan_limit_monthly_credits' }, next_run_at: at(50), now: at(35) })
  const recorded = await run(events.readAll(0, 10_000))
  // cm2's first run as recorded before ContentMonitorRunFinished had `status_code`: it still reads (as null).
  return recorded.map((e) => {
    if (e.type !== 'ContentMonitorRunFinished' || e.data.run_id !== 'cm2-r1') return e
    const { status_code: _, ...older } = e.data
    return { ...e, data: older }
  })
}

const byId = (docs: readonly Doc[], id: string) => docs.find((d) => d._id === id)

const expectations: Readonly<Record<string, (t: Test, documents: Documents) => void>> = {
  'projection.audit': (t, { audit }) => {
    const types = audit!.map((entry) => entry.type)
    for (const type of ['ContentMonitorCreated', 'ContentMonitorUpdated', 'ContentMonitorRunFinished', 'ContentMonitorAutoDisabled']) t.ok(types.includes(type), `${type} is in the audit trail`)
    t.match(audit!.find((entry) => entry.type === 'ContentMonitorUpdated'), { org_id: ORG, actor: 'scheduler', detail: { monitor_id: 'cm1', name: 'Widget price' } })
    t.notOk(JSON.stringify(audit).includes('Price: 1'), 'no page snapshot (scraped content)')
  },
  'projection.content-monitors': (t, { content_monitors, content_monitor_runs }) => {
    t.match(byId(content_monitors!, 'cm1'), {
      user_id: USER, name: 'Widget price', search: 'widget price\nhttps://example.com/price', status: 'active', frequency_minutes: 15,
      next_run_at: at(50), last_run_at: at(35), last_change_at: at(23), last_change_summary: 'the page content changed',
      last_snapshot: CHANGED, consecutive_failures: 0, last_error_code: null, last_error_message: null, created_at: at(0), updated_at: at(12),
    })
    t.match(byId(content_monitors!, 'cm2'), {
      name: 'https://gone.example.com/', status: 'disabled', next_run_at: null, consecutive_failures: AUTO_DISABLE_AFTER_FAILURES,
      last_error_code: 'dns_error', last_error_message: 'the host name does not resolve', last_snapshot: null, last_change_at: null,
      last_run_at: at(26), updated_at: at(26),
    })
    t.same(content_monitor_runs!.map((r) => [r._id, r.status]), [
      ['cm1-r1', 'succeeded'], ['cm1-r2', 'succeeded'], ['cm1-r3', 'triggered'], ['cm1-r4', 'skipped'],
      ['cm2-r1', 'failed'], ['cm2-r2', 'failed'], ['cm2-r3', 'failed'], ['cm2-r4', 'failed'], ['cm2-r5', 'failed'],
    ])
    t.match(byId(content_monitor_runs!, 'cm1-r1'), { snapshot_before: null, snapshot_after: BEFORE, change_detected: false, status_code: 200 },
      'the first run is the baseline')
    t.match(byId(content_monitor_runs!, 'cm1-r2'), { snapshot_before: BEFORE, snapshot_after: SAME, change_detected: false, change_summary: null })
    t.match(byId(content_monitor_runs!, 'cm1-r3'), {
      snapshot_before: SAME, snapshot_after: CHANGED, change_detected: true, change_summary: 'the page content changed',
      scheduled_at: at(22), started_at: at(22), completed_at: at(23),
    })
    t.match(byId(content_monitor_runs!, 'cm1-r4'), { started_at: null, snapshot_after: null, error_code: 'plan_limit_monthly_credits' },
      'a skip\'s reason is on the run, not the monitor\'s last error')
    t.match(byId(content_monitor_runs!, 'cm2-r1'), { status: 'failed', status_code: null, error_code: 'dns_error' }, 'an event without status_code')
    t.match(byId(content_monitor_runs!, 'cm2-r3'), { status: 'failed', status_code: 200, error_code: 'response_too_large', snapshot_after: null })
    t.match(byId(content_monitor_runs!, 'cm2-r5'), {
      error_code: 'dns_error', error_message: 'the host name does not resolve', status_code: null, snapshot_before: null, snapshot_after: null,
    })
  },
}

/** The content monitors read model over monitors created and updated, runs observed, triggered, skipped and failed, and an auto-disable. */
export const spec: ProjectionSpecFile = { history: recordHistory, expectations }
