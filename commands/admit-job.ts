import { Effect } from 'effect'
import { hostToResolve, type Allowlist } from '../domain/address-policy.js'
import type { JobRequested } from '../domain/job/events.js'
import type { JobSpec } from '../domain/job/spec.js'
import { dayOf, decideAdmission, type LimitBreach, type UsageSnapshot } from '../domain/limits.js'
import type { KeyLimits } from '../domain/org/events.js'
import { jobCreditWeight } from '../domain/job/decider.js'
import { PLANS, type PlanName } from '../domain/plans.js'
import { STREAMS } from '../domain/streams.js'
import { EventStore, type EventMetadata, type EventStoreService, type RecordedEvent } from '../ports/event-store.js'
import { Usage, type AdmittedJob, type UsageService } from '../ports/usage.js'
import { storeNow } from './handle.js'
import { replayableJobId, submitJob, submitJobNow, type SubmitJob } from './jobs.js'
import type { JobOrigin } from '../domain/job/origin.js'
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
  /** Where the job comes from: set by the command that submits it, recorded on JobRequested. */
  readonly origin: JobOrigin
  /** The job's id when the caller names it (a scrape's job shares the scrape's id); a new one otherwise. */
  readonly job_id?: string
  /** The service's natural key of the work (see SubmitJob.natural_key). */
  readonly natural_key?: string
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

/** Log position of an existing job's JobRequested, or null when there is no such job. */
const requestedPosition = (jobId: string) =>
  Effect.map(Effect.flatMap(EventStore, (store) => store.readStream(STREAMS.job.stream(jobId))), positionOfRequest)

const positionOfRequest = (history: readonly RecordedEvent[]) => history[0]?.position ?? null

const replayedAt = (jobId: string, position: number | null): Admission | null =>
  position === null ? null : { _tag: 'Replayed', job_id: jobId, position }

/** The domain's admission decision for the job with `used`: the limits it breaches, and its rejection when one blocks it. */
const breachesOf = (input: SubmitAdmittedJob, used: UsageSnapshot, weight: number) =>
  decideAdmission(PLANS[input.plan], input.key?.limits ?? NO_KEY_LIMITS, used, weight, input.spec.job_type, input.enforcement, input.now.getTime())

const jobInput = (input: SubmitAdmittedJob, keyId: string | null): SubmitJob => ({
  ...(input.job_id !== undefined ? { job_id: input.job_id } : {}), ...(input.natural_key !== undefined ? { natural_key: input.natural_key } : {}),
  org_id: input.org_id, api_key_id: keyId, spec: input.spec, origin: input.origin, now: input.now, metadata: input.metadata,
})

const admittedJob = (input: SubmitAdmittedJob, keyId: string | null, weight: number, position: number): AdmittedJob =>
  ({ orgId: input.org_id, keyId, weight, position, day: dayOf(input.now.toISOString()) })


/**
 * Admission: the one way a job is submitted (API, monitor runs, recipe runs). Replays an idempotent submission,
 * checks the target's resolution, then, one admission per organization at a time, checks the plan's and key's
 * limits against usage (rejecting or observing breaches) and appends JobRequested. A rejected job costs nothing.
 */
export const submitAdmittedJob = (input: SubmitAdmittedJob) =>
  Effect.gen(function* () {
    const usage = yield* Usage
    const replayable = replayableJobId(input)
    const replayed = (jobId: string) => Effect.map(requestedPosition(jobId), (position) => replayedAt(jobId, position))
    const earlier = replayable === undefined ? null : yield* replayed(replayable)
    if (earlier) return earlier
    yield* checkUrlResolution(new URL(input.spec.target_url), input.allowlist, 'target_url', 'unsafe_target_url')

    const keyId = input.key?.key_id ?? null
    // Read before waiting for the organization's turn: concurrent submissions' reads overlap rather than queue.
    const reading = yield* usage.read(input.org_id, keyId, input.now)
    return yield* usage.serialized(input.org_id, Effect.gen(function* () {
      // Another submission with the same token may have been admitted while this one waited.
      const raced = replayable === undefined ? null : yield* replayed(replayable)
      if (raced) return raced
      const weight = jobCreditWeight(input.spec)
      const { breaches, rejection } = breachesOf(input, yield* usage.snapshot(reading), weight)
      if (rejection) return yield* Effect.fail(rejection)
      const job = yield* submitJob(jobInput(input, keyId))
      if (!job.requested) {
        // Another process admitted the same token first.
        return (yield* replayed(job.job_id)) ?? { _tag: 'Replayed' as const, job_id: job.job_id, position: 0 }
      }
      yield* usage.admitted(admittedJob(input, keyId, weight, job.position))
      return { _tag: 'Created' as const, job_id: job.job_id, requested: job.requested, position: job.position, observed: breaches } satisfies Admission
    }))
  })

/** The services submitAdmittedJobNow uses. */
export interface AdmissionServices {
  readonly events: EventStoreService
  readonly usage: UsageService
}

/**
 * submitAdmittedJob done at once, without an effect run, where everything it needs answers synchronously (the
 * SQLite or memory stores, a target that needs no name lookup, no admission of the organization under way through
 * the effects); undefined otherwise (then run submitAdmittedJob). As one synchronous step it needs no lock: no other
 * admission comes between its usage reading and its append. Throws what submitAdmittedJob fails with.
 */
export const submitAdmittedJobNow = (services: AdmissionServices, input: SubmitAdmittedJob): Admission | undefined => {
  const store = storeNow(services.events)
  const { snapshotNow, admittedNow } = services.usage
  if (store === null || !snapshotNow || !admittedNow) return undefined
  const replayable = replayableJobId(input)
  const replayed = (jobId: string) => replayedAt(jobId, positionOfRequest(store.readStreamNow(STREAMS.job.stream(jobId))))
  const earlier = replayable === undefined ? null : replayed(replayable)
  if (earlier) return earlier
  if (hostToResolve(new URL(input.spec.target_url), input.allowlist) !== null) return undefined
  const keyId = input.key?.key_id ?? null
  const used = snapshotNow(input.org_id, keyId, input.now)
  if (used === undefined) return undefined
  const weight = jobCreditWeight(input.spec)
  const { breaches, rejection } = breachesOf(input, used, weight)
  if (rejection) throw rejection
  const job = submitJobNow(store, jobInput(input, keyId))
  // Another process admitted the same token first.
  if (!job.requested) return replayed(job.job_id) ?? { _tag: 'Replayed', job_id: job.job_id, position: 0 }
  admittedNow(admittedJob(input, keyId, weight, job.position))
  return { _tag: 'Created', job_id: job.job_id, requested: job.requested, position: job.position, observed: breaches }
}
