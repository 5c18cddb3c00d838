import t from 'tap'
import { decideAdmission, type UsageSnapshot } from '../../domain/limits.js'
import type { KeyLimits } from '../../domain/org/events.js'
import { PLANS, type Plan } from '../../domain/plans.js'

// A job's admission (SPEC 8), decided in domain/limits.ts: given the plan, the key's limits and the usage, when a job
// of an engine and weight is submitted, then it is admitted, observed over a limit, or rejected with the first
// breach's code and rate-limit headers (answered 429).

const NOW = Date.UTC(2026, 4, 15, 12, 0, 30)
const KEY: KeyLimits = { rate_limit_rpm: 600, daily_quota: 50_000, max_concurrent_jobs: null, enforcement_mode: 'block', ip_allowlist: [] }
const IDLE: UsageSnapshot = { jobsToday: 0, activeJobsOrg: 0, activeJobsKey: 0, creditsCommitted: 0 }
const when = (plan: Plan, usage: Partial<UsageSnapshot> = {}, options: { key?: Partial<KeyLimits>; weight?: number; engine?: string; enforcement?: 'block' | 'observe' } = {}) =>
  decideAdmission(plan, { ...KEY, ...options.key }, { ...IDLE, ...usage }, options.weight ?? 1, options.engine ?? 'light', options.enforcement ?? 'block', NOW)
const codes = (decision: ReturnType<typeof when>) => decision.breaches.map((b) => b.code)

t.test('within every limit: admitted', async (t) => {
  for (const plan of Object.values(PLANS)) t.same(when(plan, {}, { engine: 'stealth', weight: 30 }), { breaches: [], rejection: null }, `${plan.name}: a stealth job`)
})

t.test('engines by plan', async (t) => {
  const lightOnly: Plan = { ...PLANS.starter, engines: ['light'] }
  const refused = when(lightOnly, {}, { engine: 'standard', weight: 5 })
  t.match(refused.rejection, { _tag: 'AdmissionRejected', code: 'plan_limit_job_type_not_allowed', limit: 0, remaining: 0 }, 'an engine the plan leaves out is rejected')
  t.equal(refused.rejection?.retryAfterSeconds, Math.ceil((Date.UTC(2026, 5, 1) - NOW) / 1000), 'retry when the month turns')
  t.same(codes(when(lightOnly, {}, { engine: 'light' })), [], 'its own engine passes')
})

t.test('concurrent jobs by plan: Free 2, Starter 10, Pro 50, Business 100, Enterprise 500', async (t) => {
  for (const [name, cap] of [['free', 2], ['starter', 10], ['pro', 50], ['business', 100], ['enterprise', 500]] as const) {
    t.same(codes(when(PLANS[name], { activeJobsOrg: cap - 1 })), [], `${name}: job ${cap} of ${cap}`)
    t.match(when(PLANS[name], { activeJobsOrg: cap }).rejection, { code: 'plan_limit_concurrent_jobs', limit: cap, retryAfterSeconds: 1 }, `${name}: no job ${cap + 1}`)
  }
  t.match(when(PLANS.pro, { activeJobsKey: 3 }, { key: { max_concurrent_jobs: 3 } }).rejection, { code: 'key_limit_concurrent_jobs', limit: 3 }, 'the key\'s own cap')
  t.match(when(PLANS.free, { activeJobsOrg: 1, activeJobsKey: 2 }, { key: { max_concurrent_jobs: 9 } }).rejection, { code: 'key_limit_concurrent_jobs', limit: 2 }, 'a key\'s cap above the plan\'s is the plan\'s')
})

t.test('monthly credits by plan', async (t) => {
  t.same(codes(when(PLANS.free, { creditsCommitted: 970 }, { weight: 30 })), [], 'Free: the job that uses the last of 1,000 credits')
  const over = when(PLANS.free, { creditsCommitted: 971 }, { weight: 30 })
  t.match(over.rejection, { code: 'plan_limit_monthly_credits', limit: 1000, remaining: 29 }, 'Free: one credit short')
  t.same(codes(when(PLANS.starter, { creditsCommitted: 149_999 })), [], 'Starter: 150,000')
  t.match(when(PLANS.starter, { creditsCommitted: 150_000 }).rejection, { code: 'plan_limit_monthly_credits', remaining: 0 }, 'Starter: none left')
})

t.test('the key\'s daily quota', async (t) => {
  t.match(when(PLANS.pro, { jobsToday: 10 }, { key: { daily_quota: 10 } }).rejection, { code: 'daily_quota_exceeded', limit: 10, retryAfterSeconds: Math.ceil((Date.UTC(2026, 4, 16) - NOW) / 1000) }, 'used up until midnight UTC')
})

t.test('several breaches: the first answers, all are listed; observe mode admits and reports them', async (t) => {
  const usage = { activeJobsOrg: 2, creditsCommitted: 1000 }
  const blocked = when(PLANS.free, usage)
  t.same(blocked.rejection?.breaches.map((b) => b.code), ['plan_limit_concurrent_jobs', 'plan_limit_monthly_credits'])
  t.equal(blocked.rejection?.code, 'plan_limit_concurrent_jobs')
  const observed = when(PLANS.free, usage, { enforcement: 'observe' })
  t.equal(observed.rejection, null, 'observe: not rejected')
  t.same(codes(observed), ['plan_limit_concurrent_jobs', 'plan_limit_monthly_credits'], 'observe: the breaches reported')
})
