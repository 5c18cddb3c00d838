import { Effect, type Scope } from 'effect'
import { decodeStoredOnce, type StoredDecoding } from '../domain/events.js'
import { streamCategory, type Category, type DomainEvent } from '../domain/streams.js'
import type { DocumentNeeded } from '../projections/document-view.js'
import { skipReason, type Projection } from '../projections/projection.js'
import { DocumentStore, type DocumentStoreService } from '../ports/document-store.js'
import { EventLog, StoreLog } from '../ports/event-log.js'
import { EventStore, type LogReader, type RecordedEvent } from '../ports/event-store.js'
import { rebuildDocuments, type RebuildDocuments } from './rebuild-documents.js'

/** Events read from the log at a time. */
const EVENTS_PER_READ = 5000

/**
 * Rebuilds read models from position 0: clears their collections, then folds the whole log in order.
 * Run it while no projector is running (the service stopped), or the live projector races the rebuild.
 */
export const replayProjections = (projections: readonly Projection[], eventsPerRead = EVENTS_PER_READ) => Effect.scoped(Effect.gen(function* () {
  const documents = yield* DocumentStore
  // Started first: the reader's first batch is read while the writer's thread starts and takes the write lock.
  const reader = yield* readLog(eventsPerRead)
  const counts: Record<string, number> = Object.fromEntries(projections.map((projection) => [projection.name, 0]))
  const collections = projections.flatMap((projection) => projection.collections)
  // A replay into an empty database leaves it as a running service would: with the indexes its queries need.
  yield* documents.ensureIndexes(projections.flatMap((projection) => projection.indexes))
  // One write group for the whole rebuild, clears included. SQLite: one transaction, so a failed replay leaves the
  // models as they were. MongoDB: writes leave as bulk writes; a failed replay is run again from the start. Inside, the
  // projections fold into memory (rebuildDocuments), and each document is written once with its final value.
  // SQLite runs that transaction on a thread of its own (inBatchOffThread): this one reads, folds and serializes
  // while the other inserts, so the rebuild uses both cores.
  const rebuild = (target: DocumentStoreService) => Effect.gen(function* () {
    for (const collection of collections) yield* target.clear(collection)
    return yield* foldLog(projections, reader, target, counts)
  })
  const after = yield* (documents.inBatchOffThread ? documents.inBatchOffThread(rebuild) : documents.inBatch(rebuild(documents)))
  // The rebuilt models reflect the log up to `after`: live projectors resume from there.
  const storeLog = yield* StoreLog
  const eventLog = yield* EventLog
  // All at once: on Kafka each checkpoint is a round of group commits per topic that mostly waits on the broker.
  yield* Effect.forEach(projections, (projection) =>
    (projection.ordering === 'log' ? storeLog : eventLog).setCheckpoint(projection.name, after), { concurrency: 'unbounded', discard: true })
  return counts
}))

/** The whole log from position 0, `limit` events at a time; SQLite reads each next batch on a thread of its own. */
const readLog = (limit: number): Effect.Effect<LogReader, never, EventStore | Scope.Scope> => Effect.flatMap(EventStore, (store) => {
  if (store.readAllAhead) return store.readAllAhead(0, limit)
  let position = 0
  return Effect.succeed({
    next: Effect.suspend(() => store.readAll(position, limit)).pipe(Effect.tap((batch) => {
      if (batch.length > 0) position = batch[batch.length - 1]!.position
    })),
  })
})

/** Folds the whole log in order into `target`, whose projections' collections are empty; answers the last position. */
const foldLog = (projections: readonly Projection[], reader: LogReader, target: DocumentStoreService, counts: Record<string, number>) => Effect.gen(function* () {
  const byCategory = projectionsByCategory(projections)
  const folded = rebuildDocuments(target, projections)
  const folds = projections.map(() => 0)
  let position = 0
  for (;;) {
    const batch = yield* reader.next
    if (batch.length === 0) break
    // The folds run directly, without an effect per event; a fold that needs a read from the store stops the batch
    // there, and the batch goes on from that fold once the read is loaded.
    const cursor: Cursor = { event: 0, handler: 0, decoded: undefined }
    for (;;) {
      const stop = foldBatch(batch, cursor, byCategory, folded, folds)
      if (stop === undefined) break
      if (typeof stop === 'string') yield* Effect.logWarning(stop)
      else yield* folded.load(stop)
    }
    yield* folded.flush
    position = batch[batch.length - 1]!.position
  }
  projections.forEach((projection, index) => { counts[projection.name] = folds[index]! })
  return position
})

/** The projections that fold each category's events, in the given order, with their index in it. */
const projectionsByCategory = (projections: readonly Projection[]) => {
  const byCategory = new Map<string, { readonly projection: Projection; readonly index: number }[]>()
  projections.forEach((projection, index) => {
    for (const category of projection.categories) byCategory.set(category, [...(byCategory.get(category) ?? []), { projection, index }])
  })
  return byCategory
}

/** Where a batch's folding is: the event, the next of its projections, and the event decoded once for all of them. */
interface Cursor {
  event: number
  handler: number
  decoded: StoredDecoding<DomainEvent> | undefined
}

/**
 * Folds `batch` from `cursor` on, moving it. Stops at a fold that needs a read (answered, the cursor still on that
 * fold) or at an event a projection skips (its reason answered, the cursor past that projection); undefined once the
 * batch is folded.
 */
const foldBatch = (
  batch: readonly RecordedEvent[], cursor: Cursor, byCategory: ReadonlyMap<string, readonly { readonly projection: Projection; readonly index: number }[]>,
  folded: RebuildDocuments, folds: number[],
): DocumentNeeded | string | undefined => {
  for (; cursor.event < batch.length; cursor.event++, cursor.handler = 0, cursor.decoded = undefined) {
    const event = batch[cursor.event]!
    const handlers = byCategory.get(streamCategory(event.stream))
    if (handlers === undefined) continue
    const decoded = cursor.decoded ??= decodeStoredOnce(handlers[0]!.projection.categories as Category[], event)
    while (cursor.handler < handlers.length) {
      const { projection, index } = handlers[cursor.handler]!
      if (decoded.ok) {
        const needed = folded.fold(projection, decoded.event, event)
        if (needed !== undefined) return needed
      }
      folds[index]! += 1
      cursor.handler += 1
      // As the live path does, each projection that cannot read the event says so.
      if (!decoded.ok) return skipReason(projection, event, decoded.reason)
    }
  }
  return undefined
}
