import { Effect } from 'effect'
import { NotFound } from '../domain/errors.js'
import { Clock } from '../ports/clock.js'
import type { Filter } from '../ports/document-store.js'
import { JOBS, type JobDoc } from './jobs.js'
import { countDocs, findDocs, getDoc } from './projection.js'
import { awaitCommitted } from './read-your-writes.js'

/** Whether the job is still to end (queued or running). */
export const isRunning = (job: JobDoc) => job.status === 'queued' || job.status === 'running'

/**
 * On a store whose projections commit in this process (readModelsCommitHere): the job's document once it has ended,
 * answered in the turn of the commit that projects its end, or null once `seconds` have passed on the Clock. `seen`:
 * the document as the caller read it just before, in the same run.
 */
export const awaitEndedJob = (jobId: string, seconds: number, seen?: JobDoc) =>
  Effect.flatMap(Clock, (clock) => awaitCommitted(JOBS, jobId, (job) => job !== null && !isRunning(job), { clock, at: new Date(clock.now().getTime() + seconds * 1000) }, seen))

/** Another organization's job is indistinguishable from a missing one. */
export const getJob = (orgId: string, jobId: string) =>
  Effect.gen(function* () {
    const doc = yield* getDoc(JOBS, jobId)
    if (!doc || doc.org_id !== orgId) return yield* Effect.fail(new NotFound({ resource: 'job', id: jobId }))
    return doc
  })

export interface JobListQuery {
  readonly tag?: string
  readonly status?: string
  readonly job_type?: string
  readonly page: number
  readonly per_page: number
}

export const listJobs = (orgId: string, query: JobListQuery) =>
  Effect.gen(function* () {
    const filter: Record<string, Filter[string]> = { org_id: orgId }
    if (query.tag !== undefined) filter.tags = query.tag
    if (query.status !== undefined) filter.status = query.status
    if (query.job_type !== undefined) filter.job_type = query.job_type
    const [items, total] = yield* Effect.all([
      findDocs(JOBS, filter, { sort: [['created_at', 'desc'], ['job_id', 'asc']], skip: (query.page - 1) * query.per_page, limit: query.per_page }),
      countDocs(JOBS, filter),
    ])
    return { items, total }
  })
