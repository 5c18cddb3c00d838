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

/**
 * What admission needs to know about usage. Reads may lag the log a little: the service adds back the jobs this
 * process admitted that its counters have not seen yet, and runs one admission per organization at a time, so
 * concurrent submissions of one organization see each other.
 */
export interface UsageService {
  /** Runs `admission` while no other admission of the organization runs in this process. */
  readonly serialized: <A, E, R>(orgId: string, admission: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Usage of the organization and key at `now`, including this process's admissions not yet counted. */
  readonly snapshot: (orgId: string, keyId: string | null, now: Date) => Effect.Effect<UsageSnapshot, StoreUnavailable>
  /** Records a job just admitted (call inside `serialized`, after its JobRequested was appended). */
  readonly admitted: (job: AdmittedJob) => Effect.Effect<void>
}

export class Usage extends Context.Tag('Usage')<Usage, UsageService>() {}
