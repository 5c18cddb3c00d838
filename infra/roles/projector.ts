import { Effect } from 'effect'
import { DocumentStore } from '../../ports/document-store.js'
import { EventLog, StoreLog, type EventLogService } from '../../ports/event-log.js'
import type { RecordedEvent } from '../../ports/event-store.js'
import { PROJECTIONS } from '../../projections/index.js'
import type { Projection } from '../../projections/projection.js'
import { scopedSubscription, untilScopeCloses } from '../log/scoped-log.js'
import { currentRunner } from '../runtime.js'

/** Creates the indexes the projections' queries declare (idempotent), before the read side's first write or query. */
export const ensureReadModelIndexes = Effect.flatMap(DocumentStore, (docs) => docs.ensureIndexes(PROJECTIONS.flatMap((projection) => projection.indexes)))

/** Events by stream, each stream's in the order given. */
const byStream = (events: readonly RecordedEvent[]) => {
  const streams = new Map<string, RecordedEvent[]>()
  for (const event of events) {
    const stream = streams.get(event.stream)
    if (stream) stream.push(event)
    else streams.set(event.stream, [event])
  }
  return [...streams.values()]
}

/**
 * A batch of events applied as one write batch of the document store: writes wait in memory and leave together at
 * the end (one bulk write per collection on MongoDB), and the reads of streams applied side by side are gathered.
 * One stream's events apply in order. A projection with concurrency 1 (documents gathering many streams) applies the
 * batch in its order; the others apply every stream of the batch at once, since gathered reads make that cheap.
 */
const applyBatch = (projection: Projection, events: readonly RecordedEvent[]) => Effect.flatMap(DocumentStore, (docs) => docs.inBatch(
  projection.concurrency === 1
    ? Effect.forEach(events, projection.apply, { discard: true })
    : Effect.forEach(byStream(events), (stream) => Effect.forEach(stream, projection.apply, { discard: true }), { concurrency: 'unbounded', discard: true }),
))

/**
 * The projector role: one subscription per read model, on the store's own log when the projection needs the log's
 * total order, else on the event log (Kafka on scale-out). A log that delivers batches gets each applied as one write
 * batch. They stop together when the scope closes.
 */
export const projectorRole = Effect.gen(function* () {
  const run = yield* currentRunner
  const storeLog = yield* StoreLog
  const eventLog = yield* EventLog
  const subscribe = (log: EventLogService, projection: Projection) => {
    const options = { name: projection.name, categories: projection.categories, concurrency: projection.concurrency }
    return log.subscribeBatches
      ? untilScopeCloses(log.subscribeBatches(options, (events) => run(applyBatch(projection, events))))
      : scopedSubscription(log, options, (event) => run(projection.apply(event)))
  }
  yield* Effect.parallelFinalizers(Effect.forEach(PROJECTIONS, (projection) => subscribe(projection.ordering === 'log' ? storeLog : eventLog, projection), { discard: true }))
})
