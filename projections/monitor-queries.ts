import { Effect } from 'effect'
import { NotFound } from '../domain/errors.js'
import type { Filter } from '../ports/document-store.js'
import { MONITOR_RUNS, MONITORS } from './monitors.js'
import { countDocs, findDocs, getDoc } from './projection.js'

/** Another organization's monitor, and a deleted one, are indistinguishable from a missing one. */
export const getMonitor = (orgId: string, monitorId: string) =>
  Effect.gen(function* () {
    const doc = yield* getDoc(MONITORS, monitorId)
    if (!doc || doc.org_id !== orgId || doc.status === 'deleted') return yield* Effect.fail(new NotFound({ resource: 'monitor', id: monitorId }))
    return doc
  })

export interface MonitorListQuery {
  readonly status?: 'active' | 'paused'
  readonly tag?: string
  readonly page: number
  readonly per_page: number
}

export const listMonitors = (orgId: string, query: MonitorListQuery) =>
  Effect.gen(function* () {
    const filter: Record<string, Filter[string]> = { org_id: orgId, status: query.status ?? { $in: ['active', 'paused'] } }
    if (query.tag !== undefined) filter.tags = query.tag
    const [items, total] = yield* Effect.all([
      findDocs(MONITORS, filter, { sort: [['created_at', 'desc'], ['monitor_id', 'asc']], skip: (query.page - 1) * query.per_page, limit: query.per_page }),
      countDocs(MONITORS, filter),
    ])
    return { items, total }
  })

/** A monitor's runs fired from `since` on (the plan's history), newest first. */
export const listMonitorRuns = (orgId: string, monitorId: string, since: string, page: number, perPage: number) =>
  Effect.gen(function* () {
    yield* getMonitor(orgId, monitorId)
    const filter = { monitor_id: monitorId, fired_at: { $gte: since } }
    const [items, total] = yield* Effect.all([
      findDocs(MONITOR_RUNS, filter, { sort: [['fired_at', 'desc'], ['run_id', 'asc']], skip: (page - 1) * perPage, limit: perPage }),
      countDocs(MONITOR_RUNS, filter),
    ])
    return { items, total }
  })
