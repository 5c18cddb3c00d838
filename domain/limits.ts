import { AdmissionRejected } from './errors.js'
import type { KeyLimits } from './org/events.js'
import type { Plan } from './plans.js'

/** What has been used, as seen at admission time. */
export interface UsageSnapshot {
  readonly jobsToday: number
  readonly activeJobsOrg: number
  readonly activeJobsKey: number
  /** Credits charged this month plus the weights of jobs admitted but not finished. */
  readonly creditsCommitted: number
}

export interface LimitBreach {
  readonly code: string
  readonly message: string
  readonly limit: number
  readonly remaining: number
  /** Epoch milliseconds when the window resets. */
  readonly resetAt: number
}

const startOfNextMinute = (now: number) => Math.floor(now / 60_000) * 60_000 + 60_000
const startOfNextDay = (now: number) => { const d = new Date(now); return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) }
const startOfNextMonth = (now: number) => { const d = new Date(now); return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) }

/**
 * Every limit a job submission must fit (besides requests per minute, checked on every call); empty when it fits.
 * The key's concurrency is capped by the plan's (the effective limit is the smaller one).
 */
export const jobAdmissionBreaches = (plan: Plan, key: KeyLimits, usage: UsageSnapshot, weight: number, jobType: string, now: number): LimitBreach[] => {
  const breaches: LimitBreach[] = []
  if (!(plan.engines as readonly string[]).includes(jobType)) {
    breaches.push({ code: 'plan_limit_job_type_not_allowed', message: `the ${plan.name} plan does not include the ${jobType} engine`, limit: 0, remaining: 0, resetAt: startOfNextMonth(now) })
  }
  if (usage.jobsToday >= key.daily_quota) {
    breaches.push({ code: 'daily_quota_exceeded', message: `the key's daily quota of ${key.daily_quota} jobs is used up`, limit: key.daily_quota, remaining: 0, resetAt: startOfNextDay(now) })
  }
  if (usage.activeJobsOrg >= plan.concurrentJobs) {
    breaches.push({ code: 'plan_limit_concurrent_jobs', message: `${plan.concurrentJobs} jobs are already queued or running (plan ${plan.name})`, limit: plan.concurrentJobs, remaining: 0, resetAt: now + 1000 })
  }
  if (key.max_concurrent_jobs !== null && usage.activeJobsKey >= Math.min(key.max_concurrent_jobs, plan.concurrentJobs)) {
    const cap = Math.min(key.max_concurrent_jobs, plan.concurrentJobs)
    breaches.push({ code: 'key_limit_concurrent_jobs', message: `${cap} jobs of this key are already queued or running`, limit: cap, remaining: 0, resetAt: now + 1000 })
  }
  if (usage.creditsCommitted + weight > plan.monthlyCredits) {
    breaches.push({
      code: 'plan_limit_monthly_credits', message: `this job needs ${weight} credits; ${Math.max(0, plan.monthlyCredits - usage.creditsCommitted)} of ${plan.monthlyCredits} are left this month`,
      limit: plan.monthlyCredits, remaining: Math.max(0, plan.monthlyCredits - usage.creditsCommitted), resetAt: startOfNextMonth(now),
    })
  }
  return breaches
}

/** Seconds a client should wait before retrying after `breach` (at least 1). */
export const retryAfterSeconds = (breach: LimitBreach, now: number) => Math.max(1, Math.ceil((breach.resetAt - now) / 1000))

/** What admission decides for a job: the limits it breaches, and the rejection when one blocks it. */
export interface AdmissionDecision {
  readonly breaches: readonly LimitBreach[]
  /** Set when a limit is breached in `block` mode: nothing may be created. */
  readonly rejection: AdmissionRejected | null
}

/**
 * The admission decision of one job submission (SPEC 8): the plan's rules (engines in the plan, concurrency, monthly
 * credits) and the key's (daily quota, concurrency) against `usage`; in `block` mode any breach rejects it, with the
 * first breach's code and rate-limit headers; in `observe` mode it passes and reports them.
 */
export const decideAdmission = (
  plan: Plan, key: KeyLimits, usage: UsageSnapshot, weight: number, jobType: string, enforcement: 'block' | 'observe', now: number,
): AdmissionDecision => {
  const breaches = jobAdmissionBreaches(plan, key, usage, weight, jobType, now)
  const first = breaches[0]
  if (first === undefined || enforcement !== 'block') return { breaches, rejection: null }
  return {
    breaches,
    rejection: new AdmissionRejected({
      code: first.code, message: first.message, limit: first.limit, remaining: first.remaining, resetAt: first.resetAt,
      retryAfterSeconds: retryAfterSeconds(first, now), breaches: breaches.map(({ code, message }) => ({ code, message })),
    }),
  }
}

/** Requests per minute apply to every v1 call of a key, not only job submissions. */
export const rateBreach = (key: KeyLimits, requestsThisMinute: number, now: number): LimitBreach | null =>
  requestsThisMinute >= key.rate_limit_rpm
    ? { code: 'rate_limit_exceeded', message: `more than ${key.rate_limit_rpm} requests per minute for this key`, limit: key.rate_limit_rpm, remaining: 0, resetAt: startOfNextMinute(now) }
    : null

export const monthOf = (iso: string) => iso.slice(0, 7)
export const dayOf = (iso: string) => iso.slice(0, 10)
