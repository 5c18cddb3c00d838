import { Effect } from 'effect'
import type { JobSpec } from '../domain/job/spec.js'
import type { ArtifactRecord } from '../domain/job/events.js'
import type { Projection } from './projection.js'
import { updateDoc } from './projection.js'

export const JOBS = 'jobs'

/** The record of a job just requested (also the answer to its submission). */
export const requestedJobDoc = (d: Record<string, unknown>) => {
  const spec = d.spec as JobSpec
  return {
    _id: d.job_id as string, job_id: d.job_id, org_id: d.org_id, api_key_id: d.api_key_id, status: 'queued',
    job_type: spec.job_type, target_url: spec.target_url, tags: spec.tags,
    idempotency_token: spec.idempotency_token ?? null, credit_weight: d.credit_weight,
    spec, created_at: d.requested_at, started_at: null, finished_at: null, attempts: 0,
    failure_reason: null, failure_message: null, manifest: null, artifacts: [],
  }
}

/** The job record read by GET /v1/jobs, /v1/jobs/{id} and /v1/jobs/{id}/result. */
export const jobsProjection: Projection = {
  name: 'projection.jobs',
  categories: ['job'],
  collections: [JOBS],
  concurrency: 8,
  ordering: 'stream',
  apply: (event) => {
    const d = event.data as Record<string, unknown>
    const jobId = d.job_id as string
    switch (event.type) {
      case 'JobRequested':
        return updateDoc(JOBS, jobId, event, () => requestedJobDoc(d))
      case 'JobStarted':
        return updateDoc(JOBS, jobId, event, (doc) => doc && { ...doc, status: 'running', started_at: d.started_at, attempts: d.attempt })
      case 'JobSucceeded':
        return updateDoc(JOBS, jobId, event, (doc) => doc && {
          ...doc, status: 'succeeded', finished_at: d.finished_at, manifest: d.manifest, artifacts: d.artifacts as ArtifactRecord[],
        })
      case 'JobFailed':
        return updateDoc(JOBS, jobId, event, (doc) => doc && {
          ...doc, status: 'failed', finished_at: d.finished_at, failure_reason: d.failure_reason, failure_message: d.message,
          manifest: d.manifest ?? null, artifacts: (d.artifacts as ArtifactRecord[] | undefined) ?? [],
        })
      default:
        return Effect.void
    }
  },
}
