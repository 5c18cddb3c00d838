import { Effect } from 'effect'
import { EventLog } from '../../ports/event-log.js'
import { makeContentMonitorRunner } from '../../processors/content-monitor-runner.js'
import { scopedProcessor } from '../log/scoped-log.js'
import type { Logger } from '../logger.js'
import { currentRunner } from '../runtime.js'

/** Finishes content-monitor runs from their jobs, handles auto-disabling and completes interrupted creates; runs beside the fetcher. */
export const contentMonitorRunnerRole = (logger: Logger) => Effect.gen(function* () {
  const runner = makeContentMonitorRunner({ log: logger.error }, yield* currentRunner)
  yield* scopedProcessor(yield* EventLog, runner, 4)
})
