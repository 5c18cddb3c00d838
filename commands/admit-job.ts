import { Effect } from 'effect'
import type { Allowlist } from '../domain/address-policy.js'
import { AdmissionRejected } from '../domain/errors.js'
import type { JobRequested } from '../domain/job/events.js'
import type { JobSpec } from '../domain/job/spec.js'
import { dayOf, jobAdmissionBreaches, retryAfterSeconds, type LimitBreach } from '../domain/limits.js'
import type { KeyLimits } from '../domain/org/events.js'
import { jobCreditWeight } from '../domain/job/decider.js'
import { PLANS, type PlanName } from '../domain/plans.js'
import { STREAMS } from '../domain/streams.js'
import { EventStore, type EventMetadata } from '../ports/event-store.js'
import { Usage } from '../ports/usage.js'
import { idempotentJobId, submitJob } from './jobs.js'
import { checkUrlResolution } from './url-resolution.js'

/** A job submission that must fit the organization's plan and the submitting key's limits. */
export interface SubmitAdmittedJob {
  readonly org_id: string
  readonly plan: PlanName
  /** The submitting key and its limits; null for jobs the service submits itself (only the plan's limits apply). */
  readonly key: { readonly key_id: string; readonly limits: KeyLimits } | null
  /** `block` rejects a job over a limit; `observe` admits it and reports the limits it exceeded. */
  readonly enforcement: 'block' | 'observe'
  readonly spec: JobSpec
  /** The job's id when the caller names it (a scrape's job shares the scrape's id); a new one otherwise. */
  readonly job_id?: string
  /** SSRF_ALLOWLIST: targets the submission-time DNS check lets through. */
  readonly allowlist: Allowlist
  readonly now: Date
  readonly metadata: EventMetadata
}

export type Admission =
  /** A new job; `position` is its JobRequested's log position, `observed` the limits it exceeded in observe mode. */
  | { readonly _tag: 'Created'; readonly job_id: string; readonly requested: JobRequested; readonly position: number; readonly observed: readonly LimitBreach[] }
  /** The idempotency token was used before: the original job, whose JobRequested is at `position`. */
  | { readonly _tag: 'Replayed'; readonly job_id: string; readonly position: number }

const NO_KEY_LIMITS: KeyLimits = { rate_limit_rpm: Infinity, daily_quota: Infinity, max_concurrent_jobs: null, enforcement_mode: 'block', ip_allowlist: [] }

const rejected = (breaches: readonly LimitBreach[], now: number) => {
  const first = breaches[0]!
  return new AdmissionRejected({
    code: first.code, message: first.message, limit: first.limit, remaining: first.remaining, resetAt: first.resetAt,
    retryAfterSeconds: retryAfterSeconds(first, now), breaches: breaches.map(({ code, message }) => ({ code, message })),
  })
}

/** Log position of an existing job's JobRequested, or null when there is no such job. */
const requestedPosition = (jobId: string) =>
  Effect.gen(function* () {
    const history = yield* (yield* EventStore).readStream(STREAMS.job.stream(jobId))
    return history[0]?.position ?? null
  })


/**
 * Admission: the one way a job is submitted (API, monitor runs, recipe runs). Replays an idempotent submission,
 * checks the target's resolution, then, one admission per organization at a time, checks the plan's and key's
 * limits against usage (rejecting or observing breaches) and appends JobRequested. A rejected job costs nothing.
 */
export const submitAdmittedJob = (input: SubmitAdmittedJob) =>
  Effect.gen(function* () {
    const usage = yield* Usage
    const token = input.spec.idempotency_token
    const replayed = (jobId: string) => Effect.map(requestedPosition(jobId), (position) =>
      position === null ? null : { _tag: 'Replayed' as const, job_id: jobId, position })
    const earlier = token === undefined ? null : yield* replayed(idempotentJobId(input.org_id, token))
    if (earlier) return earlier
    yield* checkUrlResolution(new URL(input.spec.target_url), input.allowlist, 'target_url', 'unsafe_target_url')

    const keyId = input.key?.key_id ?? null
    // Read before waiting for the organization's turn: concurrent submissions' reads overlap rather than queue.
    const reading = yield* usage.read(input.org_id, keyId, input.now)
    return yield* usage.serialized(input.org_id, Effect.gen(function* () {
      // Another submission with the same token may have been admitted while this one waited.
      const raced = token === undefined ? null : yield* replayed(idempotentJobId(input.org_id, token))
      if (raced) return raced
      const now = input.now.getTime()
      const weight = jobCreditWeight(input.spec)
      const used = yield* usage.snapshot(reading)
      const breaches = jobAdmissionBreaches(PLANS[input.plan], input.key?.limits ?? NO_KEY_LIMITS, used, weight, input.spec.job_type, now)
      if (breaches.length > 0 && input.enforcement === 'block') return yield* Effect.fail(rejected(breaches, now))
      const job = yield* submitJob({ ...(input.job_id !== undefined ? { job_id: input.job_id } : {}), org_id: input.org_id, api_key_id: keyId, spec: input.spec, now: input.now, metadata: input.metadata })
      if (!job.requested) {
        // Another process admitted the same token first.
        const original = yield* replayed(job.job_id)
        return original ?? { _tag: 'Replayed' as const, job_id: job.job_id, position: 0 }
      }
      yield* usage.admitted({ orgId: input.org_id, keyId, weight, position: job.position, day: dayOf(input.now.toISOString()) })
      return { _tag: 'Created' as const, job_id: job.job_id, requested: job.requested, position: job.position, observed: breaches }
    }))
  })
