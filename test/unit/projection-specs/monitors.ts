import type { Test } from 'tap'
import { handle } from '../../../commands/handle.js'
import { validateJobSpec } from '../../../domain/job/spec.js'
import { monitorDecider, type MonitorCommand } from '../../../domain/monitor/decider.js'
import { DETECTION_OFF } from '../../../domain/monitor/detection-validation.js'
import { PLANS } from '../../../domain/plans.js'
import { STREAMS } from '../../../domain/streams.js'
import type { Doc } from '../../../ports/document-store.js'
import type { RecordedEvent } from '../../../ports/event-store.js'
import { memoryServices, TEST_METADATA } from '../../helpers/memory-services.js'
import type { Documents, ProjectionSpecFile } from '../../helpers/projection-spec.js'

const ORG = 'org-a'
const at = (minute: number) => new Date(Date.UTC(2026, 4, 1, 10, minute)).toISOString()
const checked = validateJobSpec({ job_type: 'light', target_url: 'https://example.com/item', tags: ['shop'] }, { allowlist: new Set(), isTimeZone: () => true })
if (!checked.ok) throw new Error('invalid test spec')
type WithoutMonitorId<C> = C extends unknown ? Omit<C, 'monitor_id'> : never

/** Two monitors: runs delivered, blocked and skipped, a fire skipped under overlap `skip`, a pause and a resume. */
const history = async (): Promise<readonly RecordedEvent[]> => {
  const { run, events } = memoryServices()
  const monitor = (id: string) => (c: WithoutMonitorId<MonitorCommand>) =>
    run(handle(monitorDecider, STREAMS.monitor.stream(id), { ...c, monitor_id: id } as MonitorCommand, { org_id: ORG, metadata: { ...TEST_METADATA, actor: 'scheduler' } }))
  const fields = { name: 'prices', cron: '*/5 * * * *', timezone: 'Europe/Berlin', job: checked.spec, overlap_policy: 'skip' as const, detection: DETECTION_OFF, tags: ['shop'] }
  const fire = (runId: string, minute: number) => ({ _tag: 'FireRun' as const, run_id: runId, trigger: 'schedule' as const, scheduled_for: at(minute), missed: 0, now: at(minute) })
  await monitor('m1')({ _tag: 'CreateMonitor', org_id: ORG, fields, now: at(11) })
  await monitor('m2')({ _tag: 'CreateMonitor', org_id: ORG, fields: { ...fields, name: 'news', tags: [] }, now: at(11) })
  await monitor('m1')(fire('r1', 15))
  await monitor('m2')(fire('r2', 15))
  await monitor('m1')({ _tag: 'RecordMint', run_id: 'r1', job_id: 'j5', now: at(15) })
  await monitor('m1')(fire('r3', 20))
  await monitor('m2')({ _tag: 'SkipRun', run_id: 'r2', refusal: { code: 'plan_limit_monthly_credits', message: 'no credits left' }, now: at(16) })
  await monitor('m1')({ _tag: 'CompleteRun', run_id: 'r1', job_id: 'j5', status: 'delivered', detail: 'content delivered (HTTP 200)', now: at(21) })
  await monitor('m1')(fire('r4', 25))
  await monitor('m1')({ _tag: 'RecordMint', run_id: 'r4', job_id: 'j6', now: at(25) })
  await monitor('m1')({ _tag: 'CompleteRun', run_id: 'r4', job_id: 'j6', status: 'blocked', detail: 'forbidden (HTTP 403)', now: at(26) })
  await monitor('m2')({ _tag: 'PauseMonitor', reason: 'user', detail: 'paused through the API', now: at(27) })
  await monitor('m2')({ _tag: 'ResumeMonitor', plan: PLANS.business, others: { active: 1, detecting: 0 }, now: at(33) })
  return run(events.readAll(0, 10_000))
}

const byId = (docs: readonly Doc[], id: string) => docs.find((d) => d._id === id)

export const spec: ProjectionSpecFile = {
  history,
  expectations: {
    'projection.monitors': (t: Test, { monitors, monitor_runs }: Documents) => {
      t.match(byId(monitors!, 'm1'), {
        status: 'active', runs_fired: 2, skipped_fires: 1, failure_streak: 1, handled_up_to: at(25), next_run_at: at(30),
        health: { status: 'blocked' }, last_run_at: at(25),
      })
      t.match(byId(monitors!, 'm2'), { status: 'active', paused_reason: null, handled_up_to: at(33), next_run_at: at(35), runs_fired: 1 })
      t.match(byId(monitor_runs!, 'r1'), { status: 'delivered', job_id: 'j5', fired_at: at(15), finished_at: at(21) })
      t.match(byId(monitor_runs!, 'r2'), { status: 'skipped_quota', job_id: null, detail: 'plan_limit_monthly_credits' })
      t.match(byId(monitor_runs!, 'r4'), { status: 'blocked', detail: 'forbidden (HTTP 403)' })
      t.notOk(byId(monitor_runs!, 'r3'), 'a skipped fire is no run')
    },
    'projection.audit': (t: Test, { audit }: Documents) => {
      const types = audit!.map((entry) => entry.type)
      for (const type of ['MonitorCreated', 'MonitorRunFired', 'MonitorRunCompleted', 'MonitorPaused', 'MonitorResumed']) t.ok(types.includes(type), `${type} is in the audit trail`)
      t.match(audit!.find((entry) => entry.type === 'MonitorPaused'), { org_id: ORG, actor: 'scheduler', detail: { monitor_id: 'm2', reason: 'user' } })
      t.notOk(JSON.stringify(audit).includes('"job":'), 'no monitor job spec (it may hold proxy credentials)')
    },
  },
}
