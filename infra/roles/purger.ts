import { Effect } from 'effect'
import { sweep, type SweepCounts } from '../../processors/purger.js'
import { Clock } from '../../ports/clock.js'
import { Metrics } from '../../ports/metrics.js'
import { purgeWork } from '../../projections/purge-work.js'
import type { Config } from '../config.js'
import type { Logger } from '../logger.js'

/** One sweep of the purger at `now` (the purger role's periodic work, and `cli purge`). */
export const purgeSweep = (config: Config, logger: Logger, options: { readonly now: Date; readonly dryRun: boolean }) =>
  sweep(purgeWork, { now: options.now, batchSize: config.purge.batchSize, dryRun: options.dryRun, log: logger.info })

const anythingDone = (counts: SweepCounts) => counts.jobs_purged + counts.artifacts_purged + counts.blobs_deleted > 0

/**
 * The purger role: a sweep every PURGE_INTERVAL_SECONDS of the Clock (a manual clock in tests), at once on start-up.
 * The timer only wakes it: what is due comes from the read models, so restarts and several purgers repeat no purge.
 * A failed sweep is logged and retried at the next interval.
 */
export const purgerRole = (config: Config, logger: Logger) => Effect.gen(function* () {
  const clock = yield* Clock
  const metrics = yield* Metrics
  const once = Effect.gen(function* () {
    const now = clock.now()
    const counts = yield* purgeSweep(config, logger, { now, dryRun: false })
    metrics.purged({ jobs: counts.jobs_purged, artifacts: counts.artifacts_purged, blobs: counts.blobs_deleted })
    if (anythingDone(counts)) logger.info('purge sweep', counts)
    yield* clock.sleepUntil(new Date(now.getTime() + config.purge.intervalSeconds * 1000))
  }).pipe(Effect.catchAllCause((cause) => Effect.zipRight(
    Effect.sync(() => logger.error('purge sweep failed', String(cause))),
    clock.sleepUntil(new Date(clock.now().getTime() + config.purge.intervalSeconds * 1000)),
  )))
  yield* Effect.forkScoped(Effect.forever(once))
})
