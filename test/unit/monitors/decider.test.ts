import t from 'tap'
import { validateJobSpec } from '../../../domain/job/spec.js'
import { monitorDecider, type MonitorCommand, type MonitorFields } from '../../../domain/monitor/decider.js'
import { DETECTION_OFF } from '../../../domain/monitor/detection-validation.js'
import {
  MonitorCreated, MonitorDeleted, MonitorFireOverlapped, MonitorPaused, MonitorResumed, MonitorRunCompleted, MonitorRunDequeued, MonitorRunFired,
  MonitorRunMinted, MonitorRunSkipped, MonitorUpdated, type MonitorEvent, type OverlapPolicy,
} from '../../../domain/monitor/events.js'
import { PLANS } from '../../../domain/plans.js'
import { scenario } from '../../helpers/given-when-then.js'

const ID = 'mon_1'
const ORG = 'org_1'
const T0 = '2026-05-01T10:00:00.000Z'
const at = (minute: number) => new Date(Date.parse(T0) + minute * 60_000).toISOString()
const checked = validateJobSpec({ job_type: 'light', target_url: 'https://example.com/' }, { allowlist: new Set(), isTimeZone: () => true })
if (!checked.ok) throw new Error('test spec')
const fields = (overlap: OverlapPolicy = 'skip'): MonitorFields => ({
  name: 'm', cron: '* * * * *', timezone: 'UTC', job: checked.spec, overlap_policy: overlap, detection: DETECTION_OFF, tags: [],
})
const created = (overlap: OverlapPolicy = 'skip') => new MonitorCreated({ monitor_id: ID, org_id: ORG, ...fields(overlap), created_at: T0 })
const fire = (minute: number, runId = `r${minute}`, trigger: 'schedule' | 'manual' = 'schedule'): MonitorCommand =>
  ({ _tag: 'FireRun', monitor_id: ID, run_id: runId, trigger, scheduled_for: at(minute), missed: 0, now: at(minute) })
const fired = (minute: number, queued = false, runId = `r${minute}`) =>
  new MonitorRunFired({ monitor_id: ID, run_id: runId, scheduled_for: at(minute), fired_at: at(minute), trigger: 'schedule', missed: 0, queued })
const complete = (runId: string, status: 'delivered' | 'blocked' | 'failed' | 'error', minute: number): MonitorCommand =>
  ({ _tag: 'CompleteRun', monitor_id: ID, run_id: runId, job_id: `job-${runId}`, status, detail: status, now: at(minute) })
const completed = (runId: string, status: 'delivered' | 'blocked' | 'failed' | 'error', minute: number) =>
  new MonitorRunCompleted({ monitor_id: ID, run_id: runId, job_id: `job-${runId}`, status, detail: status, completed_at: at(minute) })

t.test('an instant fires once: again, or an earlier one, decides nothing', async (t) => {
  const given = scenario(t, monitorDecider)
  given([created()]).when(fire(1)).then([fired(1)], 'the first instant fires')
  given([created(), fired(1)]).when(fire(1)).then([], 'the same instant again: nothing')
  given([created(), fired(2)]).when(fire(1)).then([], 'an instant before the last handled one: nothing')
  given([created()]).when(fire(0)).then([], 'the creation instant itself is not owed')
  given([created(), new MonitorPaused({ monitor_id: ID, org_id: ORG, reason: 'user', detail: '', paused_at: at(0) })]).when(fire(1)).then([], 'a paused monitor does not fire')
  given([created(), new MonitorPaused({ monitor_id: ID, org_id: ORG, reason: 'user', detail: '', paused_at: at(0) })]).when(fire(1, 'm1', 'manual')).then({ _tag: 'StateConflict', code: 'monitor_paused' }, 'nor run manually')
})

t.test('overlap policies', async (t) => {
  const given = scenario(t, monitorDecider)
  given([created('skip'), fired(1)]).when(fire(2)).then([new MonitorFireOverlapped({ monitor_id: ID, scheduled_for: at(2), trigger: 'schedule', missed: 0, outcome: 'skipped', at: at(2) })], 'skip: a run is going, the instant is skipped')
  given([created('skip'), fired(1), completed('r1', 'delivered', 1)]).when(fire(2)).then([fired(2)], 'skip: after the run ended the next one starts')
  given([created('allow'), fired(1)]).when(fire(2)).then([fired(2)], 'allow: starts regardless')
  given([created('buffer_one'), fired(1)]).when(fire(2)).then([fired(2, true)], 'buffer_one: the next waits')
  given([created('buffer_one'), fired(1), fired(2, true)]).when(fire(3)).then([new MonitorFireOverlapped({ monitor_id: ID, scheduled_for: at(3), trigger: 'schedule', missed: 0, outcome: 'dropped', at: at(3) })], 'buffer_one: a second waiting one is dropped')
  given([created('buffer_one'), fired(1), fired(2, true)]).when(complete('r1', 'delivered', 4)).then([completed('r1', 'delivered', 4), new MonitorRunDequeued({ monitor_id: ID, run_id: 'r2', at: at(4) })], 'buffer_one: the waiting run starts when the running one ends')
  given([created('buffer_one'), fired(1), fired(2, true)]).when({ _tag: 'SkipRun', monitor_id: ID, run_id: 'r1', refusal: { code: 'plan_limit_monthly_credits', message: 'credits' }, now: at(4) })
    .then([new MonitorRunSkipped({ monitor_id: ID, org_id: ORG, run_id: 'r1', status: 'skipped_quota', detail: 'plan_limit_monthly_credits: credits', skipped_at: at(4) }), new MonitorRunDequeued({ monitor_id: ID, run_id: 'r2', at: at(4) })], 'a skipped run also lets the waiting one start')
})

t.test('runs: minted once, completed once', async (t) => {
  const given = scenario(t, monitorDecider)
  const minted = new MonitorRunMinted({ monitor_id: ID, run_id: 'r1', job_id: 'job-r1', minted_at: at(1) })
  given([created(), fired(1)]).when({ _tag: 'RecordMint', monitor_id: ID, run_id: 'r1', job_id: 'job-r1', now: at(1) }).then([minted], 'minted')
  given([created(), fired(1), minted]).when({ _tag: 'RecordMint', monitor_id: ID, run_id: 'r1', job_id: 'job-r1', now: at(1) }).then([], 'minted again: nothing')
  given([created(), fired(1), minted]).when({ _tag: 'SkipRun', monitor_id: ID, run_id: 'r1', refusal: { code: 'plan_limit_monthly_credits', message: '' }, now: at(1) }).then([], 'a minted run is not skipped')
  given([created(), fired(1), minted, completed('r1', 'delivered', 2)]).when(complete('r1', 'delivered', 3)).then([], 'completed again: nothing')
  given([created()]).when(complete('unknown', 'failed', 3)).then([], 'an unknown run: nothing')
})

t.test('auto-pause after 3 consecutive non-delivering runs; skips neither count nor reset; delivered resets', async (t) => {
  const given = scenario(t, monitorDecider)
  const history: MonitorEvent[] = [created('allow'), fired(1), fired(2), fired(3), fired(4), fired(5)]
  const paused = (minute: number, last: string) => new MonitorPaused({ monitor_id: ID, org_id: ORG, reason: 'failures', detail: `3 consecutive runs did not deliver; the last: ${last}: ${last}`, paused_at: at(minute) })
  given([...history, completed('r1', 'blocked', 6), completed('r2', 'failed', 6)]).when(complete('r3', 'error', 7)).then([completed('r3', 'error', 7), paused(7, 'error')], 'blocked, failed, error: paused')
  given([...history, completed('r1', 'blocked', 6), completed('r2', 'delivered', 6), completed('r3', 'blocked', 6)]).when(complete('r4', 'blocked', 7)).then([completed('r4', 'blocked', 7)], 'a delivered run in between resets the streak')
  given([...history, completed('r1', 'blocked', 6), new MonitorRunSkipped({ monitor_id: ID, org_id: ORG, run_id: 'r2', status: 'skipped_quota', detail: '', skipped_at: at(6) }), completed('r3', 'blocked', 6)])
    .when(complete('r4', 'failed', 7)).then([completed('r4', 'failed', 7), paused(7, 'failed')], 'a skip neither counts nor resets')
  const pausedHistory = [...history, completed('r1', 'blocked', 6), completed('r2', 'blocked', 6), completed('r3', 'blocked', 6), paused(6, 'blocked')]
  given(pausedHistory).when({ _tag: 'ResumeMonitor', monitor_id: ID, plan: PLANS.enterprise, others: { active: 0, detecting: 0 }, now: at(8) }).then([new MonitorResumed({ monitor_id: ID, resumed_at: at(8) })], 'resume')
  given([...pausedHistory, new MonitorResumed({ monitor_id: ID, resumed_at: at(8) })]).when(complete('r4', 'blocked', 9)).then([completed('r4', 'blocked', 9)], 'resume cleared the streak: one more block does not pause')
  given([...pausedHistory, new MonitorResumed({ monitor_id: ID, resumed_at: at(8) })]).when(fire(8)).then([], 'instants passed while paused are not owed')
  given([...pausedHistory, new MonitorResumed({ monitor_id: ID, resumed_at: at(8) })]).when(fire(9)).then([fired(9)], 'the first instant after resuming fires')
})

t.test('updates: only changes; a new mode or selector resets the baseline', async (t) => {
  const given = scenario(t, monitorDecider)
  given([created()]).when({ _tag: 'UpdateMonitor', monitor_id: ID, changes: { name: 'm' }, now: at(1) }).then([], 'no change: nothing')
  given([created()]).when({ _tag: 'UpdateMonitor', monitor_id: ID, changes: { name: 'n' }, now: at(1) }).then([new MonitorUpdated({ monitor_id: ID, name: 'n', baseline_reset: false, updated_at: at(1) })], 'a new name')
  const selector = { ...DETECTION_OFF, enabled: true, mode: 'selector' as const, selector: '#price' }
  given([created()]).when({ _tag: 'UpdateMonitor', monitor_id: ID, changes: { detection: selector }, now: at(1) }).then([new MonitorUpdated({ monitor_id: ID, detection: selector, baseline_reset: true, updated_at: at(1) })], 'mode and selector changed: baseline reset')
  const thresholds = { ...DETECTION_OFF, min_change_ratio: 0.2 }
  given([created()]).when({ _tag: 'UpdateMonitor', monitor_id: ID, changes: { detection: thresholds }, now: at(1) }).then([new MonitorUpdated({ monitor_id: ID, detection: thresholds, baseline_reset: false, updated_at: at(1) })], 'a threshold: no reset')
  given([created()]).when({ _tag: 'UpdateMonitor', monitor_id: ID, changes: { cron: '*/5 * * * *' }, now: at(3) }).then([new MonitorUpdated({ monitor_id: ID, cron: '*/5 * * * *', baseline_reset: false, updated_at: at(3) })], 'a new cron')
  given([created(), new MonitorUpdated({ monitor_id: ID, cron: '*/5 * * * *', baseline_reset: false, updated_at: at(3) })]).when(fire(2)).then([], 'a new cron schedules from the change on')
})

t.test('a deleted monitor: its runs end quietly, everything else is not found', async (t) => {
  const given = scenario(t, monitorDecider)
  const deleted = [created(), fired(1), new MonitorDeleted({ monitor_id: ID, deleted_at: at(2) })]
  given(deleted).when(complete('r1', 'delivered', 3)).then([], 'completion: nothing')
  given(deleted).when(fire(3)).then([], 'a racing scheduler: nothing')
  given(deleted).when({ _tag: 'PauseMonitor', monitor_id: ID, reason: 'user', detail: '', now: at(3) }).then('NotFound', 'pause: not found')
  given([]).when(fire(3, 'm', 'manual')).then('NotFound', 'an unknown monitor: not found')
})

t.test('create, update and delete: each recorded once, refused on a monitor that exists or does not', async (t) => {
  const given = scenario(t, monitorDecider)
  const create: MonitorCommand = { _tag: 'CreateMonitor', monitor_id: ID, org_id: ORG, fields: fields(), now: T0 }
  const rename = (name: string): MonitorCommand => ({ _tag: 'UpdateMonitor', monitor_id: ID, changes: { name }, now: at(1) })
  const remove: MonitorCommand = { _tag: 'DeleteMonitor', monitor_id: ID, now: at(2) }
  const deleted = new MonitorDeleted({ monitor_id: ID, deleted_at: at(2) })
  given([]).when(create).then([created()], 'CreateMonitor records the monitor with its fields')
  given([created()]).when(create).then({ _tag: 'StateConflict', code: 'monitor_exists' }, 'CreateMonitor twice conflicts')
  given([created()]).when(rename('n')).then([new MonitorUpdated({ monitor_id: ID, name: 'n', baseline_reset: false, updated_at: at(1) })], 'UpdateMonitor records only what changed')
  given([created()]).when(rename('m')).then([], 'UpdateMonitor to the same values records nothing')
  given([]).when(rename('n')).then({ _tag: 'NotFound', resource: 'monitor', id: ID }, 'UpdateMonitor of an unknown monitor is not found')
  given([created()]).when(remove).then([deleted], 'DeleteMonitor records the deletion')
  given([created(), deleted]).when(remove).then({ _tag: 'NotFound', resource: 'monitor', id: ID }, 'DeleteMonitor twice: the monitor is gone')
  given([created(), deleted]).when(rename('n')).then({ _tag: 'NotFound', resource: 'monitor' }, 'UpdateMonitor of a deleted monitor is not found')
  given([]).when(remove).then({ _tag: 'NotFound', resource: 'monitor' }, 'DeleteMonitor of an unknown monitor is not found')
})
