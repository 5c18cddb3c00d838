import type { JobSpec } from '../domain/job/spec.js'
import type { DetectionConfig } from '../domain/monitor/detection-config.js'
import type { CompletionStatus, OverlapPolicy, PauseReason } from '../domain/monitor/events.js'
import { nextFireAfter } from '../domain/schedule/schedule.js'
import type { EventEnvelope } from '../ports/event-store.js'
import { collection, defineProjection, updateDoc, type DocumentView, type Stored } from './projection.js'

export type MonitorHealthStatus = 'ok' | 'selector_missing' | 'unreadable' | 'blocked' | 'failed'

/** SPEC 3.4's detection health: null status before any evaluated run. */
export interface MonitorHealth {
  readonly status: MonitorHealthStatus | null
  readonly last_checked_at: string | null
  readonly last_change_at: string | null
}

/** The record of a monitor, read by GET /v1/monitors and /v1/monitors/{id}. */
export type MonitorDoc = Stored<{
  readonly monitor_id: string
  readonly org_id: string
  readonly name: string
  readonly cron: string
  readonly timezone: string
  /** As recorded: a customer proxy password is sealed. */
  readonly job: JobSpec
  readonly overlap_policy: OverlapPolicy
  readonly detection: DetectionConfig
  readonly health: MonitorHealth
  readonly tags: readonly string[]
  readonly status: 'active' | 'paused' | 'deleted'
  readonly paused_reason: PauseReason | null
  readonly paused_detail: string | null
  /** Scheduled instants up to here are handled; the next fire is the schedule's first instant after it. */
  readonly handled_up_to: string
  /** Exact: the next instant of the schedule still owed (in the past when the scheduler is behind); null when paused. */
  readonly next_run_at: string | null
  readonly failure_streak: number
  readonly runs_fired: number
  /** Scheduled instants that started no run: overlap policy `skip`, or `buffer_one` with one already queued. */
  readonly skipped_fires: number
  readonly dropped_fires: number
  /** Instants coalesced into catch-up runs after downtime. */
  readonly missed_fires: number
  readonly last_run_at: string | null
  readonly created_at: string
  readonly updated_at: string
}>

/** `pending`: fired, its job not yet minted; `queued`: held by buffer_one until the running run ends. */
export type MonitorRunStatus = 'queued' | 'pending' | 'minted' | 'skipped_quota' | 'skipped_not_allowed' | CompletionStatus

export type MonitorRunDoc = Stored<{
  readonly run_id: string
  readonly monitor_id: string
  readonly trigger: 'schedule' | 'manual'
  readonly scheduled_for: string
  readonly fired_at: string
  readonly missed: number
  readonly status: MonitorRunStatus
  readonly job_id: string | null
  readonly detail: string | null
  readonly finished_at: string | null
}>

export const MONITORS = collection<MonitorDoc>('monitors')
export const MONITOR_RUNS = collection<MonitorRunDoc>('monitor_runs')

const nextRunAt = (doc: Pick<MonitorDoc, 'status' | 'cron' | 'timezone' | 'handled_up_to'>): string | null =>
  doc.status === 'active' ? nextFireAfter({ kind: 'cron', cron: doc.cron, timezone: doc.timezone }, new Date(doc.handled_up_to))?.toISOString() ?? null : null

const later = (a: string, b: string) => (Date.parse(a) >= Date.parse(b) ? a : b)

/** Changes a monitor already recorded and recomputes its next run. */
const updateMonitor = (view: DocumentView, monitorId: string, envelope: EventEnvelope, change: (doc: MonitorDoc) => Omit<MonitorDoc, 'next_run_at'> & { next_run_at?: string | null }) =>
  updateDoc(view, MONITORS, monitorId, envelope, (doc) => {
    if (!doc) return null
    const next = change(doc)
    return { ...next, next_run_at: nextRunAt(next) }
  })

const updateRun = (view: DocumentView, runId: string, envelope: EventEnvelope, change: (doc: MonitorRunDoc) => MonitorRunDoc) =>
  updateDoc(view, MONITOR_RUNS, runId, envelope, (doc) => doc && change(doc))

export const monitorsProjection = defineProjection({
  name: 'projection.monitors',
  categories: ['monitor'],
  collections: [MONITORS.name, MONITOR_RUNS.name],
  indexes: [
    { collection: MONITORS.name, fields: [['org_id', 1], ['created_at', -1]] },
    { collection: MONITORS.name, fields: [['org_id', 1], ['tags', 1]] },
    // The scheduler's question: which active monitors are due.
    { collection: MONITORS.name, fields: [['status', 1], ['next_run_at', 1]] },
    { collection: MONITOR_RUNS.name, fields: [['monitor_id', 1], ['fired_at', -1]] },
  ],
  concurrency: 8,
  ordering: 'stream',
  fold: (event, envelope, view) => {
    switch (event._tag) {
      case 'MonitorCreated': {
        const { _tag, created_at: at, ...fields } = event
        const doc = {
          ...fields, health: { status: null, last_checked_at: null, last_change_at: null }, status: 'active' as const,
          paused_reason: null, paused_detail: null, handled_up_to: at, failure_streak: 0, runs_fired: 0, skipped_fires: 0,
          dropped_fires: 0, missed_fires: 0, last_run_at: null, created_at: at, updated_at: at,
        }
        return updateDoc(view, MONITORS, event.monitor_id, envelope, () => ({ ...doc, next_run_at: nextRunAt(doc) }))
      }
      case 'MonitorUpdated': {
        const { _tag, monitor_id: _id, baseline_reset: _reset, updated_at: at, ...changes } = event
        const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined))
        const rescheduled = event.cron !== undefined || event.timezone !== undefined
        return updateMonitor(view, event.monitor_id, envelope, (doc) => ({
          ...doc, ...defined, updated_at: at, handled_up_to: rescheduled ? later(doc.handled_up_to, at) : doc.handled_up_to,
        }))
      }
      case 'MonitorPaused':
        return updateMonitor(view, event.monitor_id, envelope, (doc) => ({ ...doc, status: 'paused', paused_reason: event.reason, paused_detail: event.detail, updated_at: event.paused_at }))
      case 'MonitorResumed':
        return updateMonitor(view, event.monitor_id, envelope, (doc) => ({
          ...doc, status: 'active', paused_reason: null, paused_detail: null, failure_streak: 0,
          handled_up_to: later(doc.handled_up_to, event.resumed_at), updated_at: event.resumed_at,
        }))
      case 'MonitorDeleted':
        return updateMonitor(view, event.monitor_id, envelope, (doc) => ({ ...doc, status: 'deleted', updated_at: event.deleted_at }))
      case 'MonitorRunFired':
        updateMonitor(view, event.monitor_id, envelope, (doc) => ({
          ...doc, runs_fired: doc.runs_fired + 1, missed_fires: doc.missed_fires + event.missed, last_run_at: event.fired_at,
          handled_up_to: event.trigger === 'schedule' ? later(doc.handled_up_to, event.scheduled_for) : doc.handled_up_to,
        }))
        return updateDoc(view, MONITOR_RUNS, event.run_id, envelope, (_doc) => ({
          run_id: event.run_id, monitor_id: event.monitor_id, trigger: event.trigger, scheduled_for: event.scheduled_for,
          fired_at: event.fired_at, missed: event.missed, status: (event.queued ? 'queued' : 'pending') as MonitorRunStatus, job_id: null, detail: null, finished_at: null,
        }))
      case 'MonitorFireOverlapped':
        return updateMonitor(view, event.monitor_id, envelope, (doc) => ({
          ...doc, missed_fires: doc.missed_fires + event.missed,
          skipped_fires: doc.skipped_fires + (event.outcome === 'skipped' ? 1 : 0), dropped_fires: doc.dropped_fires + (event.outcome === 'dropped' ? 1 : 0),
          handled_up_to: event.trigger === 'schedule' ? later(doc.handled_up_to, event.scheduled_for) : doc.handled_up_to,
        }))
      case 'MonitorRunDequeued':
        return updateRun(view, event.run_id, envelope, (doc) => ({ ...doc, status: 'pending' }))
      case 'MonitorRunMinted':
        return updateRun(view, event.run_id, envelope, (doc) => ({ ...doc, status: 'minted', job_id: event.job_id }))
      case 'MonitorRunSkipped':
        return updateRun(view, event.run_id, envelope, (doc) => ({ ...doc, status: event.status, detail: event.detail, finished_at: event.skipped_at }))
      case 'MonitorRunCompleted':
        updateRun(view, event.run_id, envelope, (doc) => ({ ...doc, status: event.status, job_id: event.job_id, detail: event.detail, finished_at: event.completed_at }))
        return updateMonitor(view, event.monitor_id, envelope, (doc) => ({
          ...doc,
          failure_streak: event.status === 'delivered' ? 0 : doc.failure_streak + 1,
          // Delivered runs get their health from detection's evaluation.
          health: event.status === 'delivered' ? doc.health : { ...doc.health, status: event.status === 'blocked' ? 'blocked' : 'failed' },
        }))
      case 'MonitorBaselineRecorded':
        return updateMonitor(view, event.monitor_id, envelope, (doc) => ({ ...doc, health: { ...doc.health, status: 'ok', last_checked_at: event.recorded_at } }))
      case 'MonitorRunEvaluated':
        return updateMonitor(view, event.monitor_id, envelope, (doc) => ({ ...doc, health: { ...doc.health, status: event.health, last_checked_at: event.checked_at } }))
      case 'ChangeDetected':
        return updateMonitor(view, event.monitor_id, envelope, (doc) => ({
          ...doc, health: { status: 'ok', last_checked_at: event.detected_at, last_change_at: event.detected_at },
        }))
      default:
        return
    }
  },
})
