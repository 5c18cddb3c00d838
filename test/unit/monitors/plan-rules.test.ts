import t from 'tap'
import { validateJobSpec } from '../../../domain/job/spec.js'
import { monitorDecider, type MonitorCommand, type MonitorFields } from '../../../domain/monitor/decider.js'
import { DETECTION_OFF } from '../../../domain/monitor/detection-validation.js'
import { MonitorCreated, MonitorPaused, MonitorResumed, MonitorRunFired, MonitorRunSkipped } from '../../../domain/monitor/events.js'
import { MonitorPlaceClaimed, monitorQuotaDecider, type MonitorQuotaCommand } from '../../../domain/monitor/quota.js'
import { PLANS, type Plan } from '../../../domain/plans.js'
import { scenario } from '../../helpers/given-when-then.js'

// SPEC 8's monitoring rules are the deciders': the quota decider (the organization's places) when a monitor is
// created or updated, the monitor decider when it resumes or a plan change refits it. Given the plan and the state,
// when the command comes, then the event or the ValidationFailed the API answers 422 with.

const ORG = 'org_1'
const NOW = '2026-05-01T10:00:00.000Z'
const spec = (job_type: string) => {
  const checked = validateJobSpec({ job_type, target_url: 'https://example.com/' }, { allowlist: new Set(), isTimeZone: () => true })
  if (!checked.ok) throw new Error('test spec')
  return checked.spec
}
const DETECTION_ON = { ...DETECTION_OFF, enabled: true }
const fields = (cron = '0 * * * *', overrides: Partial<MonitorFields> = {}): MonitorFields => ({
  name: 'm', cron, timezone: 'UTC', job: spec('light'), overlap_policy: 'skip', detection: DETECTION_OFF, tags: [], ...overrides,
})
/** A plan without the stealth engine: none of SPEC 8's plans leaves one out, an operator's may. */
const NO_STEALTH: Plan = { ...PLANS.pro, engines: ['light', 'standard'] }

t.test('creating or updating: the quota decider checks the plan, then claims a place', async (t) => {
  const given = scenario(t, monitorQuotaDecider)
  const claim = (monitor: MonitorFields, plan: Plan, monitor_id = 'm1'): MonitorQuotaCommand => ({ _tag: 'ClaimPlace', org_id: ORG, monitor_id, monitor, plan, now: NOW })
  const claimed = (monitor_id: string, detection = false) => new MonitorPlaceClaimed({ org_id: ORG, monitor_id, detection, at: NOW })
  const places = (n: number, detection = false) => Array.from({ length: n }, (_, i) => claimed(`old${i}`, detection))

  given([]).when(claim(fields(), PLANS.starter)).then([claimed('m1')], 'Starter: an hourly monitor takes a place')
  given([]).when(claim(fields(), PLANS.free)).then({ _tag: 'ValidationFailed', errors: [{ field: 'plan', code: 'monitoring_not_in_plan' }] }, 'Free has no monitoring')

  // Minimum intervals: 1 hour Starter, 15 minutes Pro, 5 minutes Business, 60 seconds Enterprise.
  for (const [plan, fits] of [['starter', '0 * * * *'], ['pro', '*/15 * * * *'], ['business', '*/5 * * * *']] as const) {
    given([]).when(claim(fields(fits), PLANS[plan])).then([claimed('m1')], `${plan}: "${fits}" meets the minimum interval`)
  }
  given([]).when(claim(fields('*/10 * * * *'), PLANS.pro))
    .then({ _tag: 'ValidationFailed', errors: [{ field: 'cron', code: 'interval_below_plan_minimum' }] }, 'Pro: every 10 minutes is below 15')
  given([]).when(claim(fields('*/4 * * * *'), PLANS.business))
    .then({ _tag: 'ValidationFailed', errors: [{ field: 'cron', code: 'interval_below_plan_minimum' }] }, 'Business: every 4 minutes is below 5')
  given([]).when(claim(fields('* * * * *'), PLANS.enterprise)).then([claimed('m1')], 'Enterprise: every minute')

  given([]).when(claim(fields('0 * * * *', { job: spec('stealth') }), NO_STEALTH))
    .then({ _tag: 'ValidationFailed', errors: [{ field: 'job_type', code: 'job_type_not_in_plan' }] }, 'an engine the plan leaves out')
  given([]).when(claim(fields('0 * * * *', { job: spec('stealth') }), PLANS.starter)).then([claimed('m1')], 'every plan of SPEC 8 runs stealth monitors')

  // Counts: 5 Starter, 25 Pro, 100 Business; detection on 5, 25, 100.
  for (const [plan, max] of [['starter', 5], ['pro', 25], ['business', 100]] as const) {
    given(places(max - 1)).when(claim(fields(), PLANS[plan])).then([claimed('m1')], `${plan}: monitor ${max} of ${max}`)
    given(places(max)).when(claim(fields(), PLANS[plan])).then({ _tag: 'ValidationFailed', errors: [{ field: 'plan', code: 'monitor_limit_reached' }] }, `${plan}: no monitor ${max + 1}`)
  }
  given(places(1000)).when(claim(fields(), PLANS.enterprise)).then([claimed('m1')], 'Enterprise: no count limit')
  given([...places(4, true), claimed('plain')]).when(claim(fields('0 * * * *', { detection: DETECTION_ON }), PLANS.pro))
    .then([claimed('m1', true)], 'Pro: detection on a fifth monitor')
  given(places(5, true)).when(claim(fields('0 * * * *', { detection: DETECTION_ON }), PLANS.starter))
    .then({ _tag: 'ValidationFailed', errors: [{ field: 'plan', code: 'monitor_limit_reached' }] }, 'Starter: the monitor count is answered first')
  given(places(4, true)).when(claim(fields('0 * * * *', { detection: DETECTION_ON }), { ...PLANS.starter, monitoring: { maxMonitors: 10, minIntervalSeconds: 3600 } }))
    .then([claimed('m1', true)], 'with room for monitors, detection on a fifth')
  given(places(5, true)).when(claim(fields('0 * * * *', { detection: DETECTION_ON }), { ...PLANS.starter, monitoring: { maxMonitors: 10, minIntervalSeconds: 3600 } }))
    .then({ _tag: 'ValidationFailed', errors: [{ field: 'detection.enabled', code: 'detection_limit_reached' }] }, 'but not on a sixth')
  given([]).when(claim(fields('0 * * * *', { detection: DETECTION_ON }), { ...PLANS.starter, changeDetection: null }))
    .then({ _tag: 'ValidationFailed', errors: [{ field: 'detection.enabled', code: 'detection_not_in_plan' }] }, 'detection on a plan without it')

  // An update claims again with the monitor as it would become.
  given([claimed('m1')]).when(claim(fields(), PLANS.starter)).then([], 'an update that keeps detection off records nothing')
  given(places(5)).when(claim(fields(), PLANS.starter, 'old0')).then([], 'a monitor holding a place is not counted against itself')
  given([claimed('m1')]).when(claim(fields('*/5 * * * *'), PLANS.starter))
    .then({ _tag: 'ValidationFailed', errors: [{ code: 'interval_below_plan_minimum' }] }, 'an update that breaks the plan is refused')
  given([claimed('m1')]).when(claim(fields('0 * * * *', { detection: DETECTION_ON }), PLANS.starter)).then([claimed('m1', true)], 'turning detection on claims a detection place')
  given([claimed('m1'), ...places(5, true)]).when(claim(fields('0 * * * *', { detection: DETECTION_ON }), { ...PLANS.starter, monitoring: { maxMonitors: 10, minIntervalSeconds: 3600 } }))
    .then({ _tag: 'ValidationFailed', errors: [{ code: 'detection_limit_reached' }] }, 'unless the detection places are taken')
  given([]).when(claim(fields('*/5 * * * *', { job: spec('stealth'), detection: DETECTION_ON }), { ...NO_STEALTH, changeDetection: null }))
    .then({ _tag: 'ValidationFailed', errors: [{ code: 'job_type_not_in_plan' }, { code: 'detection_not_in_plan' }, { code: 'interval_below_plan_minimum' }] }, 'every broken plan rule is named at once')
})

t.test('resuming and refitting after a plan change: the monitor decider', async (t) => {
  const given = scenario(t, monitorDecider)
  const created = (cron = '0 * * * *', detection = DETECTION_OFF) => new MonitorCreated({ monitor_id: 'm1', org_id: ORG, ...fields(cron, { detection }), created_at: NOW })
  const paused = new MonitorPaused({ monitor_id: 'm1', org_id: ORG, reason: 'plan', detail: 'downgrade', paused_at: NOW })
  const resume = (plan: Plan, active = 0, detecting = 0): MonitorCommand => ({ _tag: 'ResumeMonitor', monitor_id: 'm1', plan, others: { active, detecting }, now: NOW })
  const resumed = new MonitorResumed({ monitor_id: 'm1', resumed_at: NOW })

  given([created(), paused]).when(resume(PLANS.starter, 4)).then([resumed], 'fits the plan beside 4 active monitors')
  given([created(), paused]).when(resume(PLANS.starter, 5)).then({ _tag: 'ValidationFailed', errors: [{ code: 'monitor_limit_reached' }] }, 'no room beside 5 on Starter')
  given([created(), paused]).when(resume(PLANS.free)).then({ _tag: 'ValidationFailed', errors: [{ code: 'monitoring_not_in_plan' }] }, 'not after a downgrade to Free')
  given([created('*/15 * * * *'), paused]).when(resume(PLANS.starter)).then({ _tag: 'ValidationFailed', errors: [{ code: 'interval_below_plan_minimum' }] }, 'not with a schedule below Starter\'s hour')
  given([created('0 * * * *', DETECTION_ON), paused]).when(resume({ ...PLANS.starter, monitoring: { maxMonitors: 10, minIntervalSeconds: 3600 } }, 6, 5))
    .then({ _tag: 'ValidationFailed', errors: [{ code: 'detection_limit_reached' }] }, 'no detection place beside 5 detecting')
  given([created()]).when(resume(PLANS.free)).then([], 'an active monitor: nothing to decide')

  const fit = (plan: Plan, active = 0, detecting = 0): MonitorCommand => ({ _tag: 'FitPlan', monitor_id: 'm1', plan, kept: { active, detecting }, now: NOW })
  const pausedFor = (detail: string) => new MonitorPaused({ monitor_id: 'm1', org_id: ORG, reason: 'plan', detail, paused_at: NOW })
  given([created()]).when(fit(PLANS.starter, 4)).then([], 'kept: it fits beside the 4 kept before it')
  given([created()]).when(fit(PLANS.starter, 5)).then([pausedFor('the starter plan allows 5 active monitors')], 'paused beyond the count')
  given([created()]).when(fit(PLANS.free)).then([pausedFor('the free plan does not include monitoring')], 'paused when the plan has no monitoring')
  given([created('*/15 * * * *')]).when(fit(PLANS.starter))
    .then([pausedFor('two runs of this schedule come 900 seconds apart in UTC; the starter plan\'s minimum interval is 3600 seconds')], 'paused below the minimum interval')
  given([created(), paused]).when(fit(PLANS.free)).then([], 'a paused monitor stays as it is')
})

t.test('a run whose job the plan refuses is skipped at no cost: how, the monitor decider says (SPEC 8)', async (t) => {
  const given = scenario(t, monitorDecider)
  const history = [
    new MonitorCreated({ monitor_id: 'm1', org_id: ORG, ...fields(), created_at: NOW }),
    new MonitorRunFired({ monitor_id: 'm1', run_id: 'r1', scheduled_for: NOW, fired_at: NOW, trigger: 'schedule', missed: 0, queued: false }),
  ]
  const skip = (code: string): MonitorCommand => ({ _tag: 'SkipRun', monitor_id: 'm1', run_id: 'r1', refusal: { code, message: 'refused' }, now: NOW })
  const skipped = (status: 'skipped_quota' | 'skipped_not_allowed', code: string) =>
    new MonitorRunSkipped({ monitor_id: 'm1', org_id: ORG, run_id: 'r1', status, detail: `${code}: refused`, skipped_at: NOW })
  given(history).when(skip('plan_limit_job_type_not_allowed')).then([skipped('skipped_not_allowed', 'plan_limit_job_type_not_allowed')], 'an engine not in the plan: skipped_not_allowed')
  for (const code of ['plan_limit_monthly_credits', 'plan_limit_concurrent_jobs']) {
    given(history).when(skip(code)).then([skipped('skipped_quota', code)], `${code}: skipped_quota`)
  }
})
