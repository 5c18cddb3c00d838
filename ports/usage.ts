import { Context, type Effect } from 'effect'
import type { UsageSnapshot } from '../domain/limits.js'
import type { StoreUnavailable } from './event-store.js'

/** A job admitted by this process, counted until the usage counters have seen its log position. */
export interface AdmittedJob {
  readonly orgId: string
  /** The submitting key; null for jobs the service submits itself (monitor runs, recipe runs). */
  readonly keyId: string | null
  readonly weight: number
  /** Log position of its JobRequested. */
  readonly position: number
  /** UTC day (YYYY-MM-DD) it counts against the key's daily quota. */
  readonly day: string
}

/** The usage counters of an organization and key as the read model held them at one log position. */
export interface UsageReading {
  readonly orgId: string
  readonly keyId: string | null
  readonly now: Date
  readonly jobsToday: number
  readonly activeJobsOrg: number
  readonly activeJobsKey: number
  readonly creditsCommitted: number
  /** Log position the organization's counters reflect. */
  readonly orgPosition: number
}

/**
 * What admission needs to know about usage. Reads may lag the log a little: the service adds back the jobs this
 * process admitted that its counters have not seen yet, and runs one admission per organization at a time, so
 * concurrent submissions of one organization see each other. The counters are read before the admission waits
 * for its turn, so the read-model round trips of concurrent admissions overlap instead of queueing.
 */
export interface UsageService {
  /** Runs `admission` while no other admission of the organization runs in this process. */
  readonly serialized: <A, E, R>(orgId: string, admission: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Reads the counters (call before `serialized`; concurrent reads of the same organization, key and day share one). */
  readonly read: (orgId: string, keyId: string | null, now: Date) => Effect.Effect<UsageReading, StoreUnavailable>
  /**
   * Usage at the reading's time, including this process's admissions the reading has not counted yet (call inside
   * `serialized`). A reading older than one an earlier admission of the organization used is read again.
   */
  readonly snapshot: (reading: UsageReading) => Effect.Effect<UsageSnapshot, StoreUnavailable>
  /** Records a job just admitted (call inside `serialized`, after its JobRequested was appended). */
  readonly admitted: (job: AdmittedJob) => Effect.Effect<void>
  /**
   * Optional, for a service whose counters answer synchronously: `snapshot` of a `read` made now, without an effect
   * run, or undefined while an admission of the organization runs through `serialized` (then take the effects). The
   * caller appends and records its job (`admittedNow`) in the same synchronous step, so no admission comes between.
   * Throws StoreUnavailable.
   */
  readonly snapshotNow?: (orgId: string, keyId: string | null, now: Date) => UsageSnapshot | undefined
  /** Optional, with snapshotNow: `admitted` done at once. */
  readonly admittedNow?: (job: AdmittedJob) => void
}

export class Usage extends Context.Tag('Usage')<Usage, UsageService>() {}
