import { Effect } from 'effect'
import { NotFound } from '../domain/errors.js'
import type { Filter } from '../ports/document-store.js'
import { JOBS } from './jobs.js'
import { countDocs, findDocs, getDoc } from './projection.js'

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
