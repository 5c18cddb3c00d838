import { Effect } from 'effect'
import { NotFound } from '../domain/errors.js'
import { Clock, type ClockService } from '../ports/clock.js'
import type { DocumentStoreService, Filter } from '../ports/document-store.js'
import { JOBS, type JobDoc } from './jobs.js'
import { countDocs, findDocs, getDoc } from './projection.js'
import { awaitCommitted, awaitCommittedNow } from './read-your-writes.js'

/** Whether the job is still to end (queued or running). */
export const isRunning = (job: JobDoc) => job.status === 'queued' || job.status === 'running'

/**
 * On a store whose projections commit in this process (readModelsCommitHere): the job's document once it has ended,
 * answered in the turn of the commit that projects its end, or null once `seconds` have passed on the Clock. `seen`:
 * the document as the caller read it just before, in the same run.
 */
export const awaitEndedJob = (jobId: string, seconds: number, seen?: JobDoc) =>
  Effect.flatMap(Clock, (clock) => awaitCommitted(JOBS, jobId, (job) => job !== null && !isRunning(job), { clock, at: new Date(clock.now().getTime() + seconds * 1000) }, seen))

/** awaitEndedJob without an effect run, where the store allows (awaitCommittedNow); undefined elsewhere. */
export const awaitEndedJobNow = (docs: DocumentStoreService, clock: ClockService, jobId: string, seconds: number, seen?: JobDoc) =>
  awaitCommittedNow(docs, JOBS, jobId, (job) => job !== null && !isRunning(job), { clock, at: new Date(clock.now().getTime() + seconds * 1000) }, seen)

const ownJob = (orgId: string, jobId: string, doc: JobDoc | null) => (doc && doc.org_id === orgId ? doc : new NotFound({ resource: 'job', id: jobId }))

/** Another organization's job is indistinguishable from a missing one. */
export const getJob = (orgId: string, jobId: string) =>
  Effect.flatMap(getDoc(JOBS, jobId), (doc) => {
    const own = ownJob(orgId, jobId, doc)
    return own instanceof NotFound ? Effect.fail(own) : Effect.succeed(own)
  })

/** getJob read at once from a store that can (throws NotFound or StoreUnavailable); undefined from one that cannot. */
export const getJobNow = (docs: DocumentStoreService, orgId: string, jobId: string) => {
  if (!docs.getNow) return undefined
  const own = ownJob(orgId, jobId, docs.getNow(JOBS.name, jobId) as JobDoc | null)
  if (own instanceof NotFound) throw own
  return own
}

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
