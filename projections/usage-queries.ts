import { Effect } from 'effect'
import { dayOf, monthOf } from '../domain/limits.js'
import { CREDIT_USAGE, keyCounterId, keyDayCounterId, orgCounterId, usageId, USAGE_COUNTERS, type CreditUsageDoc, type UsageCounterDoc } from './credits.js'
import { DocumentStore, type Doc, type DocumentStoreService } from '../ports/document-store.js'

/**
 * What admission needs to know about an organization and key: a handful of counter documents, whatever the volume,
 * read at once (one round trip's wait), or one after the other from a store that answers synchronously (where
 * reading at once would only add a fiber per document).
 * Jobs without a key (submitted by the service itself) are counted under the key id `none`, as the credits projection does.
 */
export const admissionUsage = (orgId: string, keyId: string | null, now: Date) =>
  Effect.flatMap(DocumentStore, (docs) => admissionUsageIn(docs, orgId, keyId, now))

const counterIds = (orgId: string, keyId: string | null, now: Date) => {
  const iso = now.toISOString()
  return [
    [USAGE_COUNTERS.name, orgCounterId(orgId)],
    [USAGE_COUNTERS.name, keyCounterId(keyId ?? 'none')],
    [USAGE_COUNTERS.name, keyDayCounterId(keyId ?? 'none', dayOf(iso))],
    [CREDIT_USAGE.name, usageId(orgId, monthOf(iso))],
  ] as const
}

const countedFrom = (found: readonly (Doc | null)[]) => {
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
}

/** admissionUsage from a given store (the usage service holds its own): no service lookup per counter. */
export const admissionUsageIn = (docs: DocumentStoreService, orgId: string, keyId: string | null, now: Date) => Effect.suspend(() => {
  const reads = counterIds(orgId, keyId, now).map(([collection, id]) => docs.get(collection, id))
  return Effect.map(docs.atomicBatches ? Effect.all(reads) : Effect.all(reads, { concurrency: 'unbounded' }), countedFrom)
})

/** admissionUsageIn read at once from a store's synchronous entry point (throws StoreUnavailable). */
export const admissionUsageNow = (getNow: NonNullable<DocumentStoreService['getNow']>, orgId: string, keyId: string | null, now: Date) =>
  countedFrom(counterIds(orgId, keyId, now).map(([collection, id]) => getNow(collection, id)))
