import type { Format } from '../domain/job/formats.js'
import type { JobType, JobSpec } from '../domain/job/spec.js'
import type { ArtifactRecord, JobEvent, JobRequested, Manifest } from '../domain/job/events.js'
import type { RecipeRunRecord } from '../domain/recipe/run-spec.js'
import type { EventEnvelope } from '../ports/event-store.js'
import { collection, defineProjection, updateDoc, type DocumentView, type Stored } from './projection.js'

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed'

/** The record of a job, read by GET /v1/jobs, /v1/jobs/{id} and /v1/jobs/{id}/result. */
export type JobDoc = Stored<{
  readonly job_id: string
  readonly org_id: string
  readonly api_key_id: string | null
  readonly status: JobStatus
  readonly job_type: JobType
  readonly target_url: string
  readonly tags: readonly string[]
  readonly idempotency_token: string | null
  readonly credit_weight: number
  /**
   * Recipe runs: the spec's recipe block (which recipe, contract and implementation); null for other jobs. The rest of
   * the spec (about 1 KB with its defaults) stays in the job's JobRequested: nothing reads it from the record.
   */
  readonly recipe: RecipeBlock | null
  /** The formats its result carries inline (absent when the request named none). */
  readonly formats?: readonly Format[]
  readonly created_at: string
  readonly started_at: string | null
  readonly finished_at: string | null
  readonly attempts: number
  readonly failure_reason: string | null
  readonly failure_message: string | null
  readonly manifest: Manifest | null
  readonly artifacts: readonly ArtifactRecord[]
  /** Recipe runs: how the run ended (null until it did, and for other jobs). */
  readonly recipe_run?: RecipeRunRecord | null
  /** What the job cost, from its CreditsCharged event (absent when it cost nothing, or ended before charges were events). */
  readonly credits_charged?: number
}>

type RecipeBlock = NonNullable<JobSpec['recipe']>

/** The recipe block of a job's record, also of a record written before it was kept apart (it held the whole spec). */
export const recipeBlockOf = (doc: JobDoc): RecipeBlock | null => doc.recipe ?? (doc as { readonly spec?: JobSpec }).spec?.recipe ?? null

export const JOBS = collection<JobDoc>('jobs')
/** Tombstones of purged jobs: an event of such a job delivered again (or replayed) never brings its record back. */
export const PURGED_JOBS = collection<Stored<{ readonly org_id: string; readonly purged_at: string }>>('jobs_purged')

/** The record of a job just requested (also the answer to its submission). */
export const requestedJobDoc = (requested: JobRequested, position = 0): JobDoc => ({
  _id: requested.job_id, _position: position,
  job_id: requested.job_id, org_id: requested.org_id, api_key_id: requested.api_key_id, status: 'queued',
  job_type: requested.spec.job_type, target_url: requested.spec.target_url, tags: requested.spec.tags,
  idempotency_token: requested.spec.idempotency_token ?? null, credit_weight: requested.credit_weight,
  recipe: requested.spec.recipe ?? null, ...(requested.spec.formats ? { formats: requested.spec.formats } : {}), created_at: requested.requested_at, started_at: null, finished_at: null, attempts: 0,
  failure_reason: null, failure_message: null, manifest: null, artifacts: [],
})

/** Changes a job already recorded (a later event of a job never comes before its JobRequested in its stream). */
const updateJob = (view: DocumentView, jobId: string, envelope: EventEnvelope, change: (job: JobDoc) => JobDoc) =>
  updateDoc(view, JOBS, jobId, envelope, (doc) => doc && change(doc))

export const jobsProjection = defineProjection({
  name: 'projection.jobs',
  categories: ['job'],
  collections: [JOBS.name, PURGED_JOBS.name],
  indexes: [
    // Listing (newest first), filtered by tag or status.
    { collection: JOBS.name, fields: [['org_id', 1], ['created_at', -1]] },
    { collection: JOBS.name, fields: [['org_id', 1], ['tags', 1]] },
    { collection: JOBS.name, fields: [['org_id', 1], ['status', 1]] },
  ],
  concurrency: 8,
  ordering: 'stream',
  fold: (event, envelope, view) => {
    if (view.get(PURGED_JOBS, event.job_id)) return
    foldJob(event, envelope, view)
  },
})

/** An end recorded with its charge (it has `origin`) costs 0 until its CreditsCharged says otherwise (in either order). */
const chargedSoFar = (end: { readonly origin?: unknown }, doc: JobDoc) => (end.origin === undefined ? {} : { credits_charged: doc.credits_charged ?? 0 })

const foldJob = (event: JobEvent, envelope: EventEnvelope, view: DocumentView): void => {
  switch (event._tag) {
    case 'JobRequested':
      return updateDoc(view, JOBS, event.job_id, envelope, () => requestedJobDoc(event))
    case 'JobStarted':
      return updateJob(view, event.job_id, envelope, (doc) => ({ ...doc, status: 'running', started_at: event.started_at, attempts: event.attempt }))
    case 'JobSucceeded':
      return updateJob(view, event.job_id, envelope, (doc) => ({
        ...doc, status: 'succeeded', finished_at: event.finished_at, manifest: event.manifest, artifacts: event.artifacts,
        ...(event.recipe ? { recipe_run: event.recipe } : {}), ...chargedSoFar(event, doc),
      }))
    case 'JobFailed':
      return updateJob(view, event.job_id, envelope, (doc) => ({
        ...doc, status: 'failed', finished_at: event.finished_at, failure_reason: event.failure_reason, failure_message: event.message,
        manifest: event.manifest ?? null, artifacts: event.artifacts ?? [], ...(event.recipe ? { recipe_run: event.recipe } : {}),
        ...chargedSoFar(event, doc),
      }))
    case 'CreditsCharged':
      return updateJob(view, event.job_id, envelope, (doc) => ({ ...doc, credits_charged: event.credits }))
    case 'ArtifactPurged':
      return updateJob(view, event.job_id, envelope, (doc) => ({ ...doc, artifacts: doc.artifacts.filter((a) => a.artifact_id !== event.artifact_id) }))
    case 'JobPurged': {
      const job = view.get(JOBS, event.job_id)
      if (!job) return
      view.put(PURGED_JOBS, { _id: event.job_id, _position: envelope.position, org_id: job.org_id, purged_at: event.purged_at })
      view.delete(JOBS, event.job_id)
      return
    }
    default:
      return
  }
}
