import { Effect } from 'effect'
import { NotFound } from '../domain/errors.js'
import { BlobStore } from '../ports/blob-store.js'
import { MONITORS } from './monitors.js'
import { collection, countDocs, defineProjection, findDocs, getDoc, updateDoc, type Stored } from './projection.js'

/** A change record (SPEC 2.6), read by GET /v1/monitors/{id}/changes and .../changes/{change_id}. */
export type MonitorChangeDoc = Stored<{
  readonly change_id: string
  readonly monitor_id: string
  readonly org_id: string
  readonly run_id: string
  readonly job_id: string
  readonly old_fingerprint: string
  readonly new_fingerprint: string
  readonly change_ratio: number | null
  readonly has_diff: boolean
  readonly diff_key: string
  readonly notified_channels: readonly string[]
  readonly detected_at: string
  readonly summary?: string
}>

export const MONITOR_CHANGES = collection<MonitorChangeDoc>('monitor_changes')

export const monitorChangesProjection = defineProjection({
  name: 'projection.monitor-changes',
  categories: ['monitor'],
  collections: [MONITOR_CHANGES.name],
  indexes: [{ collection: MONITOR_CHANGES.name, fields: [['monitor_id', 1], ['detected_at', -1]] }],
  concurrency: 8,
  ordering: 'stream',
  fold: (event, envelope, view) => {
    switch (event._tag) {
      case 'ChangeDetected':
        return updateDoc(view, MONITOR_CHANGES, event.change_id, envelope, () => ({
          change_id: event.change_id, monitor_id: event.monitor_id, org_id: envelope.org_id, run_id: event.run_id, job_id: event.job_id,
          old_fingerprint: event.old_fingerprint, new_fingerprint: event.new_fingerprint, change_ratio: event.change_ratio,
          has_diff: event.has_diff, diff_key: event.diff_key, notified_channels: event.notified_channels, detected_at: event.detected_at,
        }))
      case 'ChangeSummarized':
        return updateDoc(view, MONITOR_CHANGES, event.change_id, envelope, (doc) => doc && { ...doc, summary: event.summary })
      default:
        return
    }
  },
})

/**
 * Another organization's change (or one of another monitor), and one detected before `since` (older than the plan's
 * history), are indistinguishable from a missing one.
 */
export const getMonitorChange = (orgId: string, monitorId: string, changeId: string, since: string) =>
  Effect.gen(function* () {
    const doc = yield* getDoc(MONITOR_CHANGES, changeId)
    if (!doc || doc.org_id !== orgId || doc.monitor_id !== monitorId || doc.detected_at < since) return yield* Effect.fail(new NotFound({ resource: 'change', id: changeId }))
    return doc
  })

/** The organization's monitor (a deleted one keeps its changes readable); another's answers 404. */
const ownMonitor = (orgId: string, monitorId: string) =>
  Effect.gen(function* () {
    const monitor = yield* getDoc(MONITORS, monitorId)
    if (!monitor || monitor.org_id !== orgId) return yield* Effect.fail(new NotFound({ resource: 'monitor', id: monitorId }))
    return monitor
  })

/** Newest first, those detected from `since` on (the plan's history). */
export const listMonitorChanges = (orgId: string, monitorId: string, since: string, page: number, perPage: number) =>
  Effect.gen(function* () {
    yield* ownMonitor(orgId, monitorId)
    const filter = { monitor_id: monitorId, detected_at: { $gte: since } }
    const [items, total] = yield* Effect.all([
      findDocs(MONITOR_CHANGES, filter, { sort: [['detected_at', 'desc'], ['change_id', 'asc']], skip: (page - 1) * perPage, limit: perPage }),
      countDocs(MONITOR_CHANGES, filter),
    ])
    return { items, total }
  })

/** The stored diff of a change: lines prefixed `-` (removed) and `+` (added). */
export const monitorChangeDiff = (orgId: string, monitorId: string, changeId: string, since: string) =>
  Effect.gen(function* () {
    const change = yield* getMonitorChange(orgId, monitorId, changeId, since)
    const blob = yield* (yield* BlobStore).get(change.diff_key).pipe(
      Effect.catchTag('BlobNotFound', () => Effect.fail(new NotFound({ resource: 'diff', id: changeId }))),
    )
    return new TextDecoder().decode(blob.bytes)
  })
