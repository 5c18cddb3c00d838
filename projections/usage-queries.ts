import { Effect } from 'effect'
import { dayOf, monthOf } from '../domain/limits.js'
import { CREDIT_USAGE, keyCounterId, keyDayCounterId, orgCounterId, usageId, USAGE_COUNTERS } from './credits.js'
import { DocumentStore } from '../ports/document-store.js'
import { getDoc } from './projection.js'

/**
 * What admission needs to know about an organization and key: a handful of counter documents, whatever the volume,
 * read at once (one round trip's wait), or one after the other from a store that answers synchronously (where
 * reading at once would only add a fiber per document).
 * Jobs without a key (submitted by the service itself) are counted under the key id `none`, as the credits projection does.
 */
export const admissionUsage = (orgId: string, keyId: string | null, now: Date) =>
  Effect.gen(function* () {
    const iso = now.toISOString()
    const reads = [
      getDoc(USAGE_COUNTERS, orgCounterId(orgId)),
      getDoc(USAGE_COUNTERS, keyCounterId(keyId ?? 'none')),
      getDoc(USAGE_COUNTERS, keyDayCounterId(keyId ?? 'none', dayOf(iso))),
      getDoc(CREDIT_USAGE, usageId(orgId, monthOf(iso))),
    ] as const
    const [org, key, keyDay, usage] = (yield* DocumentStore).atomicBatches ? yield* Effect.all(reads) : yield* Effect.all(reads, { concurrency: 'unbounded' })
    return {
      activeJobsOrg: org?.active_jobs ?? 0,
      activeJobsKey: key?.active_jobs ?? 0,
      jobsToday: keyDay?.jobs ?? 0,
      creditsUsed: usage?.credits_used ?? 0,
      creditsReserved: org?.reserved_credits ?? 0,
      jobsCharged: usage?.jobs_charged ?? 0,
      /** Log position the organization's counters reflect (admission waits for its own job to be counted). */
      orgPosition: org?._position ?? 0,
    }
  })
