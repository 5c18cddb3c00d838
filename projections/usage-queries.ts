import { Effect } from 'effect'
import { dayOf, monthOf } from '../domain/limits.js'
import { CREDIT_USAGE, keyCounterId, keyDayCounterId, orgCounterId, usageId, USAGE_COUNTERS, type CreditUsageDoc, type UsageCounterDoc } from './credits.js'
import { DocumentStore, type DocumentStoreService } from '../ports/document-store.js'

/**
 * What admission needs to know about an organization and key: a handful of counter documents, whatever the volume,
 * read at once (one round trip's wait), or one after the other from a store that answers synchronously (where
 * reading at once would only add a fiber per document).
 * Jobs without a key (submitted by the service itself) are counted under the key id `none`, as the credits projection does.
 */
export const admissionUsage = (orgId: string, keyId: string | null, now: Date) =>
  Effect.flatMap(DocumentStore, (docs) => admissionUsageIn(docs, orgId, keyId, now))

/** admissionUsage from a given store (the usage service holds its own): no service lookup per counter. */
export const admissionUsageIn = (docs: DocumentStoreService, orgId: string, keyId: string | null, now: Date) => Effect.suspend(() => {
  const iso = now.toISOString()
  const reads = [
    docs.get(USAGE_COUNTERS.name, orgCounterId(orgId)),
    docs.get(USAGE_COUNTERS.name, keyCounterId(keyId ?? 'none')),
    docs.get(USAGE_COUNTERS.name, keyDayCounterId(keyId ?? 'none', dayOf(iso))),
    docs.get(CREDIT_USAGE.name, usageId(orgId, monthOf(iso))),
  ]
  return Effect.map(docs.atomicBatches ? Effect.all(reads) : Effect.all(reads, { concurrency: 'unbounded' }), (found) => {
    const [org, key, keyDay] = found as (UsageCounterDoc | null)[]
    const usage = found[3] as CreditUsageDoc | null
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
})
