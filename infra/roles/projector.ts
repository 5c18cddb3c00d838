import { Effect } from 'effect'
import { DocumentStore } from '../../ports/document-store.js'
import { EventLog, StoreLog } from '../../ports/event-log.js'
import { PROJECTIONS } from '../../projections/index.js'
import { scopedSubscription } from '../log/scoped-log.js'
import { currentRunner } from '../runtime.js'

/** Creates the indexes the projections' queries declare (idempotent), before the read side's first write or query. */
export const ensureReadModelIndexes = Effect.flatMap(DocumentStore, (docs) => docs.ensureIndexes(PROJECTIONS.flatMap((projection) => projection.indexes)))

/**
 * The projector role: one subscription per read model, on the store's own log when the projection needs the log's
 * total order, else on the event log (Kafka on scale-out). They stop together when the scope closes.
 */
export const projectorRole = Effect.gen(function* () {
  const run = yield* currentRunner
  const storeLog = yield* StoreLog
  const eventLog = yield* EventLog
  yield* Effect.parallelFinalizers(Effect.forEach(PROJECTIONS, (projection) => scopedSubscription(
    projection.ordering === 'log' ? storeLog : eventLog,
    { name: projection.name, categories: projection.categories, concurrency: projection.concurrency },
    (event) => run(projection.apply(event)),
  ), { discard: true }))
})
