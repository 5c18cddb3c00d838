import { Effect } from 'effect'
import { dayOf, monthOf } from '../domain/limits.js'
import { DocumentStore } from '../ports/document-store.js'
import { CREDIT_USAGE, keyCounterId, keyDayCounterId, orgCounterId, usageId, USAGE_COUNTERS } from './credits.js'

/**
 * What admission needs to know about an organization and key: a handful of counter documents, whatever the volume.
 * Jobs without a key (submitted by the service itself) are counted under the key id `none`, as the credits projection does.
 */
export const admissionUsage = (orgId: string, keyId: string | null, now: Date) =>
  Effect.gen(function* () {
    const docs = yield* DocumentStore
    const iso = now.toISOString()
    const [org, key, keyDay, usage] = yield* Effect.all([
      docs.get(USAGE_COUNTERS, orgCounterId(orgId)),
      docs.get(USAGE_COUNTERS, keyCounterId(keyId ?? 'none')),
      docs.get(USAGE_COUNTERS, keyDayCounterId(keyId ?? 'none', dayOf(iso))),
      docs.get(CREDIT_USAGE, usageId(orgId, monthOf(iso))),
    ])
    const n = (doc: Record<string, unknown> | null, field: string) => (doc?.[field] as number | undefined) ?? 0
    return {
      activeJobsOrg: n(org, 'active_jobs'),
      activeJobsKey: n(key, 'active_jobs'),
      jobsToday: n(keyDay, 'jobs'),
      creditsUsed: n(usage, 'credits_used'),
      creditsReserved: n(org, 'reserved_credits'),
      jobsCharged: n(usage, 'jobs_charged'),
      /** Log position the organization's counters reflect (admission waits for its own job to be counted). */
      orgPosition: n(org, '_position'),
    }
  })
