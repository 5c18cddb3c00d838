import { randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import type { Allowlist } from '../domain/address-policy.js'
import type { JobSpec } from '../domain/job/spec.js'
import type { PlanName } from '../domain/plans.js'
import { scrapeDecider, type ScrapeCommand } from '../domain/scrape/decider.js'
import type { ScrapeOptions } from '../domain/scrape/request.js'
import { STREAMS } from '../domain/streams.js'
import type { JobFailed, JobSucceeded } from '../domain/job/events.js'
import type { ScrapeRequested } from '../domain/scrape/events.js'
import { scrapeOfJob } from '../domain/scrape/job-origin.js'
import { Clock } from '../ports/clock.js'
import { type EventMetadata } from '../ports/event-store.js'
import { submitAdmittedJob } from './admit-job.js'
import { handle } from './handle.js'
import { awaitJobEnd, type JobEnd } from './job-ends.js'

export interface RequestScrape {
  readonly user_id: string
  readonly org_id: string
  readonly plan: PlanName
  readonly options: ScrapeOptions
  readonly spec: JobSpec
  readonly allowlist: Allowlist
  readonly metadata: EventMetadata
}

const runScrapeCommand = (command: ScrapeCommand, orgId: string, metadata: EventMetadata) =>
  handle(scrapeDecider, STREAMS.scrape.stream(command.scrape_id), command, { org_id: orgId, metadata })

/**
 * A scrape is a job of the user's organization, admitted like any v1 job (plan concurrency and credits, no key
 * limits), whose id is also the scrape's. The job is admitted first, so a rejected scrape records nothing; its
 * JobRequested names the user (a tag), and the ScrapeRequested is derived from it, here and, should this process stop
 * before recording it, by the scrape recorder: both record the same event once.
 */
export const requestScrape = (input: RequestScrape) =>
  Effect.gen(function* () {
    const scrapeId = randomUUID()
    const now = (yield* Clock).now()
    const admitted = yield* submitAdmittedJob({
      job_id: scrapeId, org_id: input.org_id, plan: input.plan, key: null, enforcement: 'block',
      spec: input.spec, origin: { _tag: 'scrape', user_id: input.user_id }, allowlist: input.allowlist, now, metadata: input.metadata,
    })
    const scrape = admitted._tag === 'Created' ? scrapeOfJob(admitted.requested) : null
    if (scrape === null) return yield* Effect.die(new Error(`scrape ${scrapeId}: its job was not admitted as a new scrape`))
    const handled = yield* recordScrapeRequested(scrape, input.metadata)
    return { scrape_id: scrapeId, job_id: scrapeId, position: handled.position }
  })

/** Records the scrape a scrape's job implies (idempotent: a scrape already recorded stays as it is). */
export const recordScrapeRequested = (scrape: Omit<ScrapeRequested, '_tag'>, metadata: EventMetadata) =>
  runScrapeCommand({ _tag: 'RequestScrape', ...scrape, now: scrape.requested_at }, scrape.org_id, metadata)

/** Records a scrape's result from its job's last event (idempotent: the first record stays). */
export const completeScrape = (scrapeId: string, orgId: string, end: JobSucceeded | JobFailed, metadata: EventMetadata) => {
  const screenshot = (end.artifacts ?? []).find((a) => a.artifact_type === 'screenshot')
  const status = end.manifest?.http_status
  return runScrapeCommand({
    _tag: 'CompleteScrape', scrape_id: scrapeId, job_succeeded: end._tag === 'JobSucceeded',
    status_code: typeof status === 'number' ? status : null,
    failure_reason: end._tag === 'JobFailed' ? end.failure_reason : null,
    failure_message: end._tag === 'JobFailed' ? end.message : null,
    screenshot_blob_key: screenshot?.blob_key ?? null,
    completed_at: end.finished_at, now: end.finished_at,
  }, orgId, metadata)
}

/** The waiting request gave up: recorded so the scrape reads as failed/timeout until (and after) its late result. */
const expireScrapeWait = (scrapeId: string, orgId: string, waitedSeconds: number, now: Date, metadata: EventMetadata) =>
  runScrapeCommand({ _tag: 'ExpireScrapeWait', scrape_id: scrapeId, waited_seconds: waitedSeconds, now: now.toISOString() }, orgId, metadata)

export type ScrapeOutcome =
  | { readonly _tag: 'Ended'; readonly end: JobEnd; readonly position: number }
  | { readonly _tag: 'WaitExpired'; readonly position: number }

/**
 * Waits for the scrape's job to end, at most `waitSeconds` by the Clock, and records what the caller is answered:
 * the result (ScrapeCompleted) or the expiry (ScrapeWaitExpired; the job goes on and the recorder adds its late result).
 * A job ending in the instant the wait expires wins: the caller then gets the result.
 */
export const awaitScrapeOutcome = (scrapeId: string, orgId: string, waitSeconds: number, metadata: EventMetadata) =>
  Effect.gen(function* () {
    const clock = yield* Clock
    const end = yield* awaitJobEnd(scrapeId, new Date(clock.now().getTime() + waitSeconds * 1000))
    if (end === null) {
      const expired = yield* Effect.either(expireScrapeWait(scrapeId, orgId, waitSeconds, clock.now(), metadata))
      if (expired._tag === 'Right') return { _tag: 'WaitExpired', position: expired.right.position } satisfies ScrapeOutcome as ScrapeOutcome
    }
    const ended = end ?? (yield* awaitJobEnd(scrapeId, clock.now()))
    if (ended === null) return { _tag: 'WaitExpired', position: 0 } satisfies ScrapeOutcome as ScrapeOutcome
    const recorded = yield* completeScrape(scrapeId, orgId, ended.event, metadata)
    return { _tag: 'Ended', end: ended, position: recorded.position } satisfies ScrapeOutcome as ScrapeOutcome
  })
