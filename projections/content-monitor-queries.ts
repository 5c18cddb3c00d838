import { Effect } from 'effect'
import { NotFound } from '../domain/errors.js'
import type { Filter } from '../ports/document-store.js'
import { CONTENT_MONITOR_RUNS, CONTENT_MONITORS } from './content-monitors.js'
import { countDocs, findDocs, getDoc } from './projection.js'
import { USERS } from './users.js'

export const CONTENT_MONITOR_SORTS = { nextRunAt: 'next_run_at', updatedAt: 'updated_at', createdAt: 'created_at' } as const

export interface ContentMonitorListQuery {
  readonly status?: string
  readonly backend?: string
  /** Substring of the name or URL (case-insensitive). */
  readonly q?: string
  readonly page: number
  readonly perPage: number
  readonly sort: keyof typeof CONTENT_MONITOR_SORTS
  readonly dir: 'asc' | 'desc'
}

/** The organization's users, whose monitors are the organization's (the monitor documents name their maker only). */
const orgUserIds = (orgId: string) => Effect.map(findDocs(USERS, { org_id: orgId }), (users) => users.map((u) => u.user_id))

/** Another organization's monitor is indistinguishable from a missing one. */
export const getContentMonitor = (orgId: string, monitorId: string) =>
  Effect.gen(function* () {
    const doc = yield* getDoc(CONTENT_MONITORS, monitorId)
    const maker = doc ? yield* getDoc(USERS, doc.user_id) : undefined
    if (!doc || maker?.org_id !== orgId) return yield* Effect.fail(new NotFound({ resource: 'content_monitor', id: monitorId }))
    return doc
  })

export const listContentMonitors = (orgId: string, query: ContentMonitorListQuery) =>
  Effect.gen(function* () {
    const filter: Record<string, Filter[string]> = { user_id: { $in: yield* orgUserIds(orgId) } }
    if (query.status !== undefined) filter.status = query.status
    if (query.backend !== undefined) filter.backend = query.backend
    if (query.q !== undefined && query.q !== '') filter.search = { $contains: query.q.toLowerCase() }
    const [items, total] = yield* Effect.all([
      findDocs(CONTENT_MONITORS, filter, {
        sort: [[CONTENT_MONITOR_SORTS[query.sort], query.dir], ['monitor_id', query.dir]], skip: (query.page - 1) * query.perPage, limit: query.perPage,
      }),
      countDocs(CONTENT_MONITORS, filter),
    ])
    return { items, total }
  })

/** The monitor's most recent runs, newest scheduled first. */
export const recentRuns = (monitorId: string, limit: number) =>
  findDocs(CONTENT_MONITOR_RUNS, { monitor_id: monitorId }, { sort: [['scheduled_at', 'desc'], ['run_id', 'desc']], limit })

export const getRun = (runId: string) => getDoc(CONTENT_MONITOR_RUNS, runId)
