import { legacyCharge } from '../domain/credits/charge.js'
import { dayOf, monthOf } from '../domain/limits.js'
import type { EventEnvelope } from '../ports/event-store.js'
import { collection, defineProjection, updateDoc, type DocumentView, type Stored } from './projection.js'

/** What the ledger remembers of a job between its request and its end. */
export type CreditJobDoc = Stored<{
  readonly org_id: string
  /** `none` for jobs submitted without a key. */
  readonly api_key_id: string
  readonly weight: number
  readonly finished: boolean
  readonly charged: boolean
  /** A monitor run's job (read by the rule for jobs that ended before charges were CreditsCharged events). */
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

/** A counter's value, 0 while unset. */
const count = (value: number | undefined): number => (typeof value === 'number' ? value : 0)

// Counters move through updateDoc, whose position guard makes a redelivered event change nothing. Each builds its
// document as one literal, with its `_id` and a placeholder `_position` last, which updateDoc sets in place: replay
// builds one per event, and filling an object field by field, or copying it to add those two, was most of its folding.
const moveOrgCounter = (view: DocumentView, orgId: string, envelope: EventEnvelope, activeJobs: number, reservedCredits: number) => {
  const id = orgCounterId(orgId)
  updateDoc(view, USAGE_COUNTERS, id, envelope, (doc) => ({
    org_id: orgId, active_jobs: count(doc?.active_jobs) + activeJobs, reserved_credits: count(doc?.reserved_credits) + reservedCredits,
    _id: id, _position: 0,
  }))
}

const moveKeyCounter = (view: DocumentView, keyId: string, envelope: EventEnvelope, activeJobs: number) => {
  const id = keyCounterId(keyId)
  updateDoc(view, USAGE_COUNTERS, id, envelope, (doc) => ({ api_key_id: keyId, active_jobs: count(doc?.active_jobs) + activeJobs, _id: id, _position: 0 }))
}

const charge = (view: DocumentView, orgId: string, month: string, credits: number, envelope: EventEnvelope) => {
  const id = usageId(orgId, month)
  updateDoc(view, CREDIT_USAGE, id, envelope, (doc) => ({
    org_id: orgId, month, credits_used: count(doc?.credits_used) + credits, jobs_charged: count(doc?.jobs_charged) + 1, _id: id, _position: 0,
  }))
}

/**
 * The monthly credit ledger and the admission counters. A job's end releases its reservation; what it cost is its
 * CreditsCharged event (decided once, with the end: domain/credits/charge.ts), added here as recorded and never
 * priced again. Only a job that ended before charges were recorded (its end has no `origin`) is priced here, by the
 * rule of that time. Runs with concurrency 1 (documents gather events of many streams), and every document is
 * guarded by the position it last saw, so redelivery never counts twice.
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
          org_id: orgId, api_key_id: keyId, weight, finished: false, charged: false, monitor_run: event.origin._tag === 'monitor_run',
          _id: event.job_id, _position: 0,
        }))
        moveOrgCounter(view, orgId, envelope, 1, weight)
        moveKeyCounter(view, keyId, envelope, 1)
        const dayId = keyDayCounterId(keyId, dayOf(event.requested_at))
        updateDoc(view, USAGE_COUNTERS, dayId, envelope, (doc) => ({ api_key_id: keyId, jobs: count(doc?.jobs) + 1, _id: dayId, _position: 0 }))
        return
      }
      case 'JobSucceeded':
      case 'JobFailed': {
        const job = view.get(CREDIT_JOBS, event.job_id)
        if (!job) return
        const { org_id: orgId, weight } = job
        moveOrgCounter(view, orgId, envelope, -1, -weight)
        moveKeyCounter(view, job.api_key_id, envelope, -1)
        const legacy = event.origin === undefined ? legacyCharge({ weight, monitor_run: job.monitor_run === true }, event) : 0
        if (legacy > 0) charge(view, orgId, monthOf(event.finished_at), legacy, envelope)
        updateDoc(view, CREDIT_JOBS, event.job_id, envelope, (doc) => doc && { ...doc, finished: true, charged: doc.charged || legacy > 0 })
        return
      }
      case 'CreditsCharged': {
        charge(view, event.org_id, monthOf(event.charged_at), event.credits, envelope)
        updateDoc(view, CREDIT_JOBS, event.job_id, envelope, (doc) => doc && { ...doc, charged: true })
        return
      }
      default:
        return
    }
  },
})
