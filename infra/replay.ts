import { Effect } from 'effect'
import { streamCategory } from '../domain/streams.js'
import type { Projection } from '../projections/projection.js'
import { DocumentStore } from '../ports/document-store.js'
import { EventLog, StoreLog } from '../ports/event-log.js'
import { EventStore } from '../ports/event-store.js'

/**
 * Events folded per write group. On MongoDB a group's writes wait in memory (the adapter bounds it) and leave as bulk
 * writes, a document changed by several events of the group once; on SQLite a group is one transaction.
 */
const EVENTS_PER_BATCH = 1000

/**
 * Rebuilds read models from position 0: clears their collections, then folds the whole log in order.
 * Run it while no projector is running (the service stopped), or the live projector races the rebuild.
 */
export const replayProjections = (projections: readonly Projection[]) => Effect.gen(function* () {
  const documents = yield* DocumentStore
  const store = yield* EventStore
  const counts: Record<string, number> = {}
  for (const projection of projections) {
    for (const collection of projection.collections) yield* documents.clear(collection)
    counts[projection.name] = 0
  }
  // A replay into an empty database leaves it as a running service would: with the indexes its queries need.
  yield* documents.ensureIndexes(projections.flatMap((projection) => projection.indexes))
  let after = 0
  for (;;) {
    const batch = yield* store.readAll(after, EVENTS_PER_BATCH)
    if (batch.length === 0) break
    // One write group per batch of the log: replay runs alone, and a failed batch leaves the models as before it.
    yield* documents.inBatch(Effect.forEach(batch, (event) => {
      const category = streamCategory(event.stream)
      return Effect.forEach(projections, (projection) => {
        if (!projection.categories.includes(category)) return Effect.void
        counts[projection.name]! += 1
        return projection.apply(event)
      }, { discard: true })
    }, { discard: true }))
    after = batch[batch.length - 1]!.position
  }
  // The rebuilt models reflect the log up to `after`: live projectors resume from there.
  const storeLog = yield* StoreLog
  const eventLog = yield* EventLog
  // All at once: on Kafka each checkpoint is a round of group commits per topic that mostly waits on the broker.
  yield* Effect.forEach(projections, (projection) =>
    (projection.ordering === 'log' ? storeLog : eventLog).setCheckpoint(projection.name, after), { concurrency: 'unbounded', discard: true })
  return counts
})
