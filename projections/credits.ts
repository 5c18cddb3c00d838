import { Effect } from 'effect'
import { dayOf, monthOf } from '../domain/limits.js'
import { DocumentStore } from '../ports/document-store.js'
import type { Projection } from './projection.js'
import { updateDoc } from './projection.js'

export const CREDIT_JOBS = 'credit_jobs'
export const CREDIT_USAGE = 'credit_usage'
/** Admission counters: active jobs per organization and key, jobs per key and day. */
export const USAGE_COUNTERS = 'usage_counters'
export const usageId = (orgId: string, month: string) => `${orgId}:${month}`
export const orgCounterId = (orgId: string) => `org:${orgId}`
export const keyCounterId = (keyId: string) => `key:${keyId}`
export const keyDayCounterId = (keyId: string, day: string) => `keyday:${keyId}:${day}`

const num = (doc: Record<string, unknown> | null, field: string) => (doc?.[field] as number | undefined) ?? 0

/** Adds to counters of one document; the position guard of updateDoc makes a redelivered event change nothing. */
const add = (collection: string, id: string, event: Parameters<typeof updateDoc>[2], deltas: Record<string, number>, fixed: Record<string, unknown> = {}) =>
  updateDoc(collection, id, event, (doc) => ({
    ...fixed,
    ...Object.fromEntries(Object.entries(deltas).map(([field, delta]) => [field, num(doc, field) + delta])),
  }))

/**
 * The monthly credit ledger and the admission counters. A job is charged its weight once, when it succeeded (its
 * artifacts are stored and its result delivered); failed jobs cost nothing. Runs with concurrency 1 (documents gather
 * events of many streams), and every document is guarded by the position it last saw, so redelivery never counts twice.
 */
export const creditsProjection: Projection = {
  name: 'projection.credits',
  categories: ['job'],
  collections: [CREDIT_JOBS, CREDIT_USAGE, USAGE_COUNTERS],
  concurrency: 1,
  ordering: 'log',
  apply: (event) => {
    const d = event.data as Record<string, unknown>
    const jobId = d.job_id as string
    switch (event.type) {
      case 'JobRequested': {
        const orgId = d.org_id as string
        const keyId = (d.api_key_id as string | null) ?? 'none'
        const weight = d.credit_weight as number
        return Effect.all([
          updateDoc(CREDIT_JOBS, jobId, event, () => ({ org_id: orgId, api_key_id: keyId, weight, finished: false, charged: false })),
          add(USAGE_COUNTERS, orgCounterId(orgId), event, { active_jobs: 1, reserved_credits: weight }, { org_id: orgId }),
          add(USAGE_COUNTERS, keyCounterId(keyId), event, { active_jobs: 1 }, { api_key_id: keyId }),
          add(USAGE_COUNTERS, keyDayCounterId(keyId, dayOf(d.requested_at as string)), event, { jobs: 1 }, { api_key_id: keyId }),
        ], { discard: true })
      }
      case 'JobSucceeded':
      case 'JobFailed':
        return Effect.gen(function* () {
          const job = yield* (yield* DocumentStore).get(CREDIT_JOBS, jobId)
          if (!job) return
          const orgId = job.org_id as string
          const weight = job.weight as number
          const succeeded = event.type === 'JobSucceeded'
          const month = monthOf(d.finished_at as string)
          yield* Effect.all([
            add(USAGE_COUNTERS, orgCounterId(orgId), event, { active_jobs: -1, reserved_credits: -weight }, { org_id: orgId }),
            add(USAGE_COUNTERS, keyCounterId(job.api_key_id as string), event, { active_jobs: -1 }, { api_key_id: job.api_key_id }),
            ...(succeeded ? [add(CREDIT_USAGE, usageId(orgId, month), event, { credits_used: weight, jobs_charged: 1 }, { org_id: orgId, month })] : []),
            updateDoc(CREDIT_JOBS, jobId, event, (doc) => doc && { ...doc, finished: true, charged: succeeded }),
          ], { discard: true })
        })
      default:
        return Effect.void
    }
  },
}
