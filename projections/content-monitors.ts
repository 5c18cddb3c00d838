import type { ContentMonitorStatus, Rule, Snapshot } from '../domain/content-monitor/events.js'
import type { ScrapeBackend } from '../domain/scrape/events.js'
import { collection, defineProjection, updateDoc, type Stored } from './projection.js'

export type ContentMonitorDoc = Stored<{
  readonly monitor_id: string
  readonly user_id: string
  readonly name: string
  readonly url: string
  /** Lower-cased name and URL: what `q` searches. */
  readonly search: string
  readonly backend: ScrapeBackend
  readonly status: ContentMonitorStatus
  readonly frequency_minutes: number
  readonly rule: Rule
  readonly next_run_at: string | null
  readonly last_run_at: string | null
  readonly last_change_at: string | null
  readonly last_change_summary: string | null
  readonly last_snapshot: Snapshot | null
  readonly consecutive_failures: number
  readonly last_error_code: string | null
  readonly last_error_message: string | null
  readonly created_at: string
  readonly updated_at: string
}>

export type RunStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'triggered' | 'skipped'

export type ContentMonitorRunDoc = Stored<{
  readonly run_id: string
  readonly monitor_id: string
  readonly status: RunStatus
  readonly change_detected: boolean
  readonly change_summary: string | null
  readonly status_code: number | null
  readonly error_code: string | null
  readonly error_message: string | null
  readonly scheduled_at: string
  readonly started_at: string | null
  readonly completed_at: string | null
  readonly snapshot_before: Snapshot | null
  readonly snapshot_after: Snapshot | null
}>

export const CONTENT_MONITORS = collection<ContentMonitorDoc>('content_monitors')
export const CONTENT_MONITOR_RUNS = collection<ContentMonitorRunDoc>('content_monitor_runs')

const searchOf = (name: string, url: string) => `${name}\n${url}`.toLowerCase()

/** Monitors and their runs; both documents of an event come from the monitor's one stream, so stream order suffices. */
export const contentMonitorsProjection = defineProjection({
  name: 'projection.content-monitors',
  categories: ['content-monitor'],
  collections: [CONTENT_MONITORS.name, CONTENT_MONITOR_RUNS.name],
  indexes: [
    { collection: CONTENT_MONITORS.name, fields: [['user_id', 1], ['created_at', -1]] },
    { collection: CONTENT_MONITORS.name, fields: [['user_id', 1], ['next_run_at', 1]] },
    { collection: CONTENT_MONITORS.name, fields: [['user_id', 1], ['updated_at', -1]] },
    // The scheduler's question: which active monitors are due.
    { collection: CONTENT_MONITORS.name, fields: [['status', 1], ['next_run_at', 1]] },
    { collection: CONTENT_MONITOR_RUNS.name, fields: [['monitor_id', 1], ['scheduled_at', -1]] },
  ],
  concurrency: 8,
  ordering: 'stream',
  fold: (event, envelope, view) => {
    const monitor = (id: string, change: (doc: ContentMonitorDoc) => Omit<ContentMonitorDoc, '_id' | '_position'>) =>
      updateDoc(view, CONTENT_MONITORS, id, envelope, (doc) => doc && change(doc))
    const run = (id: string, change: (doc: ContentMonitorRunDoc) => Omit<ContentMonitorRunDoc, '_id' | '_position'>) =>
      updateDoc(view, CONTENT_MONITOR_RUNS, id, envelope, (doc) => doc && change(doc))
    switch (event._tag) {
      case 'ContentMonitorCreated':
        return updateDoc(view, CONTENT_MONITORS, event.monitor_id, envelope, () => ({
          monitor_id: event.monitor_id, user_id: event.user_id, name: event.name, url: event.url, search: searchOf(event.name, event.url),
          backend: event.backend, status: 'active' as const, frequency_minutes: event.frequency_minutes, rule: event.rule,
          next_run_at: event.next_run_at, last_run_at: null, last_change_at: null, last_change_summary: null, last_snapshot: null,
          consecutive_failures: 0, last_error_code: null, last_error_message: null, created_at: event.created_at, updated_at: event.created_at,
        }))
      case 'ContentMonitorUpdated':
        return monitor(event.monitor_id, (doc) => {
          const name = event.name ?? doc.name
          return {
            ...doc, name, search: searchOf(name, doc.url), frequency_minutes: event.frequency_minutes ?? doc.frequency_minutes,
            status: event.status ?? doc.status, rule: event.rule ?? doc.rule, next_run_at: event.next_run_at, updated_at: event.updated_at,
            ...(event.status === 'active' ? { consecutive_failures: 0 } : {}),
          }
        })
      case 'ContentMonitorRunRequested':
        return updateDoc(view, CONTENT_MONITOR_RUNS, event.run_id, envelope, () => ({
          run_id: event.run_id, monitor_id: event.monitor_id, status: 'pending' as const, change_detected: false, change_summary: null,
          status_code: null, error_code: null, error_message: null, scheduled_at: event.scheduled_at, started_at: null, completed_at: null,
          snapshot_before: null, snapshot_after: null,
        }))
      case 'ContentMonitorRunStarted':
        return run(event.run_id, (doc) => ({ ...doc, status: 'running', started_at: event.started_at }))
      case 'ContentMonitorRunFinished': {
        const before = view.get(CONTENT_MONITORS, event.monitor_id)?.last_snapshot ?? null
        run(event.run_id, (doc) => ({
          ...doc, status: event.outcome, change_detected: event.outcome === 'triggered', change_summary: event.change_summary,
          status_code: event.snapshot?.statusCode ?? event.status_code, error_code: event.error_code, error_message: event.error_message,
          completed_at: event.completed_at, snapshot_before: before, snapshot_after: event.snapshot,
        }))
        return monitor(event.monitor_id, (doc) => ({
          ...doc, last_run_at: event.completed_at, next_run_at: event.next_run_at,
          ...(event.snapshot ? { last_snapshot: event.snapshot } : {}),
          ...(event.outcome === 'triggered' ? { last_change_at: event.completed_at, last_change_summary: event.change_summary } : {}),
          ...(event.outcome === 'failed' ? { consecutive_failures: doc.consecutive_failures + 1 } : {}),
          ...(event.outcome === 'succeeded' || event.outcome === 'triggered' ? { consecutive_failures: 0 } : {}),
          // A skip's reason is on the run only: the monitor's last error is its last failed run's.
          ...(event.outcome === 'failed' ? { last_error_code: event.error_code, last_error_message: event.error_message } : {}),
        }))
      }
      case 'ContentMonitorAutoDisabled':
        return monitor(event.monitor_id, (doc) => ({ ...doc, status: 'disabled', next_run_at: null, updated_at: event.disabled_at }))
      default:
        return
    }
  },
})
