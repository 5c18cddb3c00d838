import { Effect } from 'effect'
import { loadMonitor, runMonitorCommand } from '../../commands/monitors.js'
import { dueFire, scheduledRunId } from '../../domain/schedule/schedule.js'
import { MONITORS } from '../../projections/monitors.js'
import { findDocs } from '../../projections/projection.js'
import type { ScheduleSource } from '../../processors/scheduler.js'
import type { DocumentStore } from '../../ports/document-store.js'
import type { EventStore } from '../../ports/event-store.js'

/** v1 monitors as a schedule source: the read model says who may be due, each monitor's stream decides. */
export const monitorScheduleSource: ScheduleSource<EventStore | DocumentStore> = {
  name: 'monitors',
  due: (now, limit) => Effect.map(
    findDocs(MONITORS, { status: 'active', next_run_at: { $lte: now.toISOString() } }, { sort: [['next_run_at', 'asc']], limit }),
    (docs) => docs.map((doc) => doc.monitor_id),
  ),
  earliest: Effect.map(
    findDocs(MONITORS, { status: 'active', next_run_at: { $gt: '' } }, { sort: [['next_run_at', 'asc']], limit: 1 }),
    (docs) => (docs[0]?.next_run_at ? new Date(docs[0].next_run_at) : null),
  ),
  fire: (monitorId, now) => Effect.gen(function* () {
    const state = yield* loadMonitor(monitorId)
    if (state.status !== 'active') return null
    const due = dueFire({ kind: 'cron', cron: state.cron, timezone: state.timezone }, new Date(state.handled_up_to), now)
    if (due === null) return null
    const runId = scheduledRunId(monitorId, due.scheduled_for)
    const handled = yield* runMonitorCommand({
      _tag: 'FireRun', monitor_id: monitorId, run_id: runId, trigger: 'schedule', scheduled_for: due.scheduled_for.toISOString(),
      missed: due.missed, now: now.toISOString(),
    }, state.org_id, { metadata: { correlation_id: runId, causation_id: null, actor: 'scheduler' }, idSeed: `fire:${runId}` })
    return handled.events.length > 0 ? due.scheduled_for : null
  }),
}
