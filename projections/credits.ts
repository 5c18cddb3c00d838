import { Effect } from 'effect'
import { monthOf } from '../domain/limits.js'
import type { Projection } from './projection.js'
import { updateDoc } from './projection.js'

export const CREDIT_JOBS = 'credit_jobs'
export const CREDIT_USAGE = 'credit_usage'
export const usageId = (orgId: string, month: string) => `${orgId}:${month}`

/**
 * The monthly credit ledger. A job is charged its weight once, when it succeeded (its artifacts are stored and its
 * result delivered); failed jobs cost nothing. `credit_jobs` remembers what was charged, so a redelivered or replayed
 * event never charges twice.
 */
export const creditsProjection: Projection = {
  name: 'projection.credits',
  categories: ['job'],
  collections: [CREDIT_JOBS, CREDIT_USAGE],
  concurrency: 1,
  apply: (event) => {
    const d = event.data as Record<string, unknown>
    const jobId = d.job_id as string
    switch (event.type) {
      case 'JobRequested':
        return updateDoc(CREDIT_JOBS, jobId, event, () => ({ org_id: d.org_id, weight: d.credit_weight, charged: false, month: null }))
      case 'JobSucceeded':
        return Effect.gen(function* () {
          let charge: { org_id: string; weight: number } | null = null
          yield* updateDoc(CREDIT_JOBS, jobId, event, (doc) => {
            if (!doc || doc.charged) return null
            charge = { org_id: doc.org_id as string, weight: doc.weight as number }
            return { ...doc, charged: true, month: monthOf(d.finished_at as string) }
          })
          const charged = charge as { org_id: string; weight: number } | null
          if (!charged) return
          const month = monthOf(d.finished_at as string)
          yield* updateDoc(CREDIT_USAGE, usageId(charged.org_id, month), event, (doc) => ({
            org_id: charged.org_id, month,
            credits_used: ((doc?.credits_used as number | undefined) ?? 0) + charged.weight,
            jobs_charged: ((doc?.jobs_charged as number | undefined) ?? 0) + 1,
          }))
        })
      default:
        return Effect.void
    }
  },
}
