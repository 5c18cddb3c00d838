import { Effect } from 'effect'
import { streamCategory } from '../domain/streams.js'
import { DocumentNeeded } from '../projections/document-view.js'
import type { Projection } from '../projections/projection.js'
import { DocumentStore, type DocumentStoreService } from '../ports/document-store.js'
import { EventLog, StoreLog } from '../ports/event-log.js'
import { EventStore, type RecordedEvent } from '../ports/event-store.js'
import { replayDocuments, type ReplayDocuments } from './replay-documents.js'

/** Events read from the log at a time. */
const EVENTS_PER_READ = 5000

/**
 * Rebuilds read models from position 0: clears their collections, then folds the whole log in order.
 * Run it while no projector is running (the service stopped), or the live projector races the rebuild.
 */
export const replayProjections = (projections: readonly Projection[]) => Effect.gen(function* () {
  const documents = yield* DocumentStore
  const counts: Record<string, number> = Object.fromEntries(projections.map((projection) => [projection.name, 0]))
  const collections = projections.flatMap((projection) => projection.collections)
  // A replay into an empty database leaves it as a running service would: with the indexes its queries need.
  yield* documents.ensureIndexes(projections.flatMap((projection) => projection.indexes))
  // One write group for the whole rebuild, clears included. SQLite: one transaction, so a failed replay leaves the
  // models as they were. MongoDB: writes leave as bulk writes; a failed replay is run again from the start. Inside, the
  // projections fold into memory (replayDocuments), and each document is written once with its final value.
  const after = yield* documents.inBatch(Effect.gen(function* () {
    for (const collection of collections) yield* documents.clear(collection)
    return yield* foldLog(projections, documents, counts)
  }))
  // The rebuilt models reflect the log up to `after`: live projectors resume from there.
  const storeLog = yield* StoreLog
  const eventLog = yield* EventLog
  // All at once: on Kafka each checkpoint is a round of group commits per topic that mostly waits on the broker.
  yield* Effect.forEach(projections, (projection) =>
    (projection.ordering === 'log' ? storeLog : eventLog).setCheckpoint(projection.name, after), { concurrency: 'unbounded', discard: true })
  return counts
})

/** Folds the whole log in order into `target`, whose projections' collections are empty; answers the last position. */
const foldLog = (projections: readonly Projection[], target: DocumentStoreService, counts: Record<string, number>) => Effect.gen(function* () {
  const store = yield* EventStore
  const byCategory = projectionsByCategory(projections)
  const folded = replayDocuments(target, projections.flatMap((projection) => projection.collections))
  let position = 0
  for (;;) {
    const batch = yield* store.readAll(position, EVENTS_PER_READ)
    if (batch.length === 0) break
    // The folds run directly, without an effect per event; a fold that needs a read from the store stops the batch
    // there, and the batch goes on from that fold once the read is loaded.
    const cursor = { event: 0, handler: 0 }
    for (;;) {
      const stop = foldBatch(batch, cursor, byCategory, folded, counts)
      if (stop === undefined) break
      if (typeof stop === 'string') yield* Effect.logWarning(stop)
      else yield* folded.load(stop)
    }
    if (folded.full()) yield* folded.flush
    position = batch[batch.length - 1]!.position
  }
  yield* folded.flush
  return position
})

/** The projections that fold each category's events, in the given order. */
const projectionsByCategory = (projections: readonly Projection[]) => {
  const byCategory = new Map<string, Projection[]>()
  for (const projection of projections) {
    for (const category of projection.categories) byCategory.set(category, [...(byCategory.get(category) ?? []), projection])
  }
  return byCategory
}

/**
 * Folds `batch` from `cursor` on, moving it. Stops at a fold that needs a read (answered, the cursor still on that
 * fold) or that skipped its event (answered, the cursor past it); undefined once the batch is folded.
 */
const foldBatch = (
  batch: readonly RecordedEvent[], cursor: { event: number; handler: number },
  byCategory: ReadonlyMap<string, readonly Projection[]>, folded: ReplayDocuments, counts: Record<string, number>,
): DocumentNeeded | string | undefined => {
  for (; cursor.event < batch.length; cursor.event++, cursor.handler = 0) {
    const event = batch[cursor.event]!
    const handlers = byCategory.get(streamCategory(event.stream))
    if (handlers === undefined) continue
    while (cursor.handler < handlers.length) {
      const projection = handlers[cursor.handler]!
      const outcome = folded.fold(projection, event)
      if (outcome instanceof DocumentNeeded) return outcome
      counts[projection.name]! += 1
      cursor.handler += 1
      if (outcome !== undefined) return outcome
    }
  }
  return undefined
}
