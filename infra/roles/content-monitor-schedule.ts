import { Effect } from 'effect'
import { fireScheduledContentMonitorRun, type ScheduledRunOptions } from '../../commands/content-monitors.js'
import { CONTENT_MONITORS } from '../../projections/content-monitors.js'
import { findDocs } from '../../projections/projection.js'

/** The account API's content monitors as a schedule source: the read model says who may be due, each monitor's stream decides. */
// Shaped as processors/scheduler.ts's ScheduleSource (checked where runScheduler takes it).
export const makeContentMonitorScheduleSource = <R>(options: ScheduledRunOptions<R>) => ({
  name: 'content-monitors',
  due: (now: Date, limit: number) => Effect.map(
    findDocs(CONTENT_MONITORS, { status: 'active', next_run_at: { $lte: now.toISOString() } }, { sort: [['next_run_at', 'asc']], limit }),
    (docs) => docs.map((doc) => doc.monitor_id),
  ),
  earliest: Effect.map(
    findDocs(CONTENT_MONITORS, { status: 'active', next_run_at: { $gt: '' } }, { sort: [['next_run_at', 'asc']], limit: 1 }),
    (docs) => (docs[0]?.next_run_at ? new Date(docs[0].next_run_at) : null),
  ),
  fire: (monitorId: string, now: Date) => fireScheduledContentMonitorRun(monitorId, now, options),
})
