import { creditsCharged } from '../domain/job/decider.js'
import { dayOf, monthOf } from '../domain/limits.js'
import { monitorRunOf, runOutcome } from '../domain/monitor/run-outcome.js'
import type { EventEnvelope } from '../ports/event-store.js'
import { collection, defineProjection, updateDoc, type Collection, type DocumentView, type Stored } from './projection.js'

/** What the ledger remembers of a job between its request and its end. */
export type CreditJobDoc = Stored<{
  readonly org_id: string
  /** `none` for jobs submitted without a key. */
  readonly api_key_id: string
  readonly weight: number
  readonly finished: boolean
  readonly charged: boolean
  /** A monitor run's job: charged only when it delivered (a blocked page costs nothing). */
  readonly monitor_run?: boolean
}>

/** Credits charged to an organization in one month. */
export type CreditUsageDoc = Stored<{
  readonly org_id: string
  readonly month: string
  readonly credits_used: number
  readonly jobs_charged: number
}>

/** One admission counter: of an organization (`org:`), a key (`key:`) or a key and day (`keyday:`). */
export type UsageCounterDoc = Stored<{
  readonly org_id?: string
  readonly api_key_id?: string
  /** Queued and running jobs (organization and key counters). */
  readonly active_jobs?: number
  /** Weights of the organization's queued and running jobs. */
  readonly reserved_credits?: number
  /** Jobs requested (key and day counters). */
  readonly jobs?: number
}>

export const CREDIT_JOBS = collection<CreditJobDoc>('credit_jobs')
export const CREDIT_USAGE = collection<CreditUsageDoc>('credit_usage')
/** Admission counters: active jobs per organization and key, jobs per key and day. */
export const USAGE_COUNTERS = collection<UsageCounterDoc>('usage_counters')
export const usageId = (orgId: string, month: string) => `${orgId}:${month}`
export const orgCounterId = (orgId: string) => `org:${orgId}`
export const keyCounterId = (keyId: string) => `key:${keyId}`
export const keyDayCounterId = (keyId: string, day: string) => `keyday:${keyId}:${day}`

type Counter<D> = { [F in keyof D]-?: NonNullable<D[F]> extends number ? F : never }[keyof D]

/** Adds to counters of one document; the position guard of updateDoc makes a redelivered event change nothing. */
const add = <D extends Stored<object>>(
  view: DocumentView, into: Collection<D>, id: string, envelope: EventEnvelope,
  deltas: Partial<Record<Counter<D>, number>>, fixed: Partial<Omit<D, '_id' | '_position'>>,
) =>
  updateDoc(view, into, id, envelope, (doc) => {
    const next: Record<string, unknown> = { ...fixed }
    for (const [field, delta] of Object.entries<number | undefined>(deltas)) next[field] = count(doc, field) + (delta ?? 0)
    return next as Omit<D, '_id' | '_position'>
  })

const count = (doc: object | null, field: string): number => {
  const value: unknown = doc === null ? undefined : Reflect.get(doc, field)
  return typeof value === 'number' ? value : 0
}

/**
 * The monthly credit ledger and the admission counters. A job is charged its weight once, when it succeeded (its
 * artifacts are stored and its result delivered); failed jobs cost nothing, and so does a monitor run's job that
 * succeeded without delivering (HTTP 403/429, a challenge: `runOutcome`). A recipe run reserves its weight and is
 * charged what its terminal event records. Runs with concurrency 1 (documents gather
 * events of many streams), and every document is guarded by the position it last saw, so redelivery never counts twice.
 */
export const creditsProjection = defineProjection({
  name: 'projection.credits',
  categories: ['job'],
  collections: [CREDIT_JOBS.name, CREDIT_USAGE.name, USAGE_COUNTERS.name],
  concurrency: 1,
  ordering: 'log',
  fold: (event, envelope, view) => {
    switch (event._tag) {
      case 'JobRequested': {
        const orgId = event.org_id
        const keyId = event.api_key_id ?? 'none'
        const weight = event.credit_weight
        updateDoc(view, CREDIT_JOBS, event.job_id, envelope, () => ({
          org_id: orgId, api_key_id: keyId, weight, finished: false, charged: false, monitor_run: monitorRunOf(event.spec.idempotency_token) !== null,
        }))
        add(view, USAGE_COUNTERS, orgCounterId(orgId), envelope, { active_jobs: 1, reserved_credits: weight }, { org_id: orgId })
        add(view, USAGE_COUNTERS, keyCounterId(keyId), envelope, { active_jobs: 1 }, { api_key_id: keyId })
        add(view, USAGE_COUNTERS, keyDayCounterId(keyId, dayOf(event.requested_at)), envelope, { jobs: 1 }, { api_key_id: keyId })
        return
      }
      case 'JobSucceeded':
      case 'JobFailed': {
        const job = view.get(CREDIT_JOBS, event.job_id)
        if (!job) return
        const { org_id: orgId, weight } = job
        // The reservation is released; the charge follows the one rule in the domain, where a monitor run's job
        // counts as succeeded only when it delivered (a blocked page costs nothing).
        const delivered = event._tag === 'JobSucceeded' && (job.monitor_run !== true || runOutcome(event).status === 'delivered')
        const charge = creditsCharged({ succeeded: delivered, recipe: event.recipe }, weight)
        const month = monthOf(event.finished_at)
        add(view, USAGE_COUNTERS, orgCounterId(orgId), envelope, { active_jobs: -1, reserved_credits: -weight }, { org_id: orgId })
        add(view, USAGE_COUNTERS, keyCounterId(job.api_key_id), envelope, { active_jobs: -1 }, { api_key_id: job.api_key_id })
        if (charge > 0) add(view, CREDIT_USAGE, usageId(orgId, month), envelope, { credits_used: charge, jobs_charged: 1 }, { org_id: orgId, month })
        updateDoc(view, CREDIT_JOBS, event.job_id, envelope, (doc) => doc && { ...doc, finished: true, charged: charge > 0 })
        return
      }
      default:
        return
    }
  },
})
