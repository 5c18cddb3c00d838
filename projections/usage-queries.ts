import { Effect } from 'effect'
import { dayOf, monthOf } from '../domain/limits.js'
import { DocumentStore } from '../infra/ports/document-store.js'
import { CREDIT_USAGE, usageId } from './credits.js'
import { JOBS } from './jobs.js'

const ACTIVE = { $in: ['queued', 'running'] } as const

/** What admission needs to know about an organization and key, read from the projections. */
export const admissionUsage = (orgId: string, keyId: string, now: Date) =>
  Effect.gen(function* () {
    const docs = yield* DocumentStore
    const iso = now.toISOString()
    const [activeOrg, activeKey, jobsToday, usage] = yield* Effect.all([
      docs.find(JOBS, { org_id: orgId, status: ACTIVE }),
      docs.count(JOBS, { api_key_id: keyId, status: ACTIVE }),
      docs.count(JOBS, { api_key_id: keyId, created_at: { $gte: `${dayOf(iso)}T00:00:00.000Z` } }),
      docs.get(CREDIT_USAGE, usageId(orgId, monthOf(iso))),
    ])
    const reserved = activeOrg.reduce((sum, job) => sum + (job.credit_weight as number), 0)
    return {
      activeJobsOrg: activeOrg.length,
      activeJobsKey: activeKey,
      jobsToday,
      creditsUsed: (usage?.credits_used as number | undefined) ?? 0,
      creditsReserved: reserved,
      jobsCharged: (usage?.jobs_charged as number | undefined) ?? 0,
    }
  })
