import { Effect } from 'effect'
import { EventLog } from '../../ports/event-log.js'
import { Metrics } from '../../ports/metrics.js'
import { findDocs } from '../../projections/projection.js'
import { getOrg } from '../../projections/org-queries.js'
import { USERS } from '../../projections/users.js'
import { isPlanName } from '../../domain/plans.js'
import { makeContentMonitorScheduleSource } from './content-monitor-schedule.js'
import { monitorScheduleSource } from './monitor-schedule.js'
import { makeMonitorRunsProcessor } from '../../processors/monitor-runs.js'
import { makePauseMailProcessor } from '../../processors/monitor-pause-mail.js'
import { makeMonitorPlanProcessor } from '../../processors/monitor-plan.js'
import { runScheduler } from '../../processors/scheduler.js'
import type { Config } from '../config.js'
import { scopedProcessor } from '../log/scoped-log.js'
import type { Logger } from '../logger.js'
import { currentRunner } from '../runtime.js'

/**
 * The scheduler role: fires monitor runs and content-monitor runs at their instants (a stateless loop on the Clock), mints each run's job,
 * completes runs from their jobs' outcomes, pauses the monitors a plan change leaves outside the plan, and mails the
 * organization when a monitor pauses itself.
 */
export const schedulerRole = (config: Config, logger: Logger) => Effect.gen(function* () {
  const run = yield* currentRunner
  const eventLog = yield* EventLog
  const planOf = (orgId: string) => Effect.map(getOrg(orgId), (org) => (isPlanName(org.plan) ? org.plan : 'free'))
  const runs = makeMonitorRunsProcessor({ allowlist: config.ssrfAllowlist, log: logger.error, planOf }, run)
  yield* scopedProcessor(eventLog, runs, 8)
  const mails = makePauseMailProcessor({
    publicBaseUrl: config.publicBaseUrl, log: logger.error,
    recipientsOf: (orgId) => Effect.map(findDocs(USERS, { org_id: orgId }), (users) => users.map((user) => ({ id: user._id, email: user.email }))),
  }, run)
  yield* scopedProcessor(eventLog, mails, 2)
  const planChanges = makeMonitorPlanProcessor({ log: logger.error }, run)
  yield* scopedProcessor(eventLog, planChanges, 1)
  const contentMonitorScheduleSource = makeContentMonitorScheduleSource({ allowlist: config.ssrfAllowlist, planOf })
  const metrics = yield* Metrics
  yield* Effect.forkScoped(runScheduler([monitorScheduleSource, contentMonitorScheduleSource], {
    pollMs: config.schedulerPollMs, concurrency: 8, log: logger.error, onFired: metrics.monitorFired,
  }))
})
