import { Effect, Option } from 'effect'
import { DocumentStore, type Doc, type DocumentStoreService } from '../../ports/document-store.js'
import { EventLog, StoreLog, type EventLogService } from '../../ports/event-log.js'
import type { RecordedEvent } from '../../ports/event-store.js'
import { DocumentNeeded, FoldView } from '../../projections/document-view.js'
import type { Projection } from '../../projections/projection.js'
import { documentsAtOnce, projectInBatches } from '../log/projection-batches.js'
import { scopedSubscription, untilScopeCloses } from '../log/scoped-log.js'
import type { Logger } from '../logger.js'
import { ReadModels } from '../read-models.js'
import { Prometheus } from '../metrics/layer.js'
import { currentRunner } from '../runtime.js'

/** Creates the indexes the projections' queries declare (idempotent), before the read side's first write or query. */
export const ensureReadModelIndexes = Effect.gen(function* () {
  const docs = yield* DocumentStore
  const projections = yield* ReadModels
  yield* docs.ensureIndexes(projections.flatMap((projection) => projection.indexes))
})

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

/** Rounds of reading ahead: a fold's later reads may depend on its earlier ones (a job's record names its counters). */
const READ_AHEAD_ROUNDS = 3

/**
 * Before a batch's events are applied one after another (a projection whose documents gather many streams), the
 * documents their folds read are asked for together: each fold is tried on what was read so far, and the reads it
 * still needs leave at once (the batch gathers them into one query per collection) rather than one round trip per
 * event. Only reads, kept by the batch: the events are then applied in order, each seeing the writes before it.
 */
const readAhead = (docs: DocumentStoreService, projection: Projection, events: readonly RecordedEvent[]) => Effect.gen(function* () {
  const read = new Map<string, Doc | null>()
  const keyOf = (collection: string, id: string) => `${collection}\u0000${id}`
  for (let round = 0; round < READ_AHEAD_ROUNDS; round++) {
    const view = new FoldView((collection, id) => read.get(keyOf(collection, id)))
    const needed = new Map<string, DocumentNeeded & { readonly id: string }>()
    for (const event of events) {
      const outcome = view.attempt(projection.fold, event)
      if (outcome instanceof DocumentNeeded && outcome.id !== null && !read.has(keyOf(outcome.collection, outcome.id))) {
        needed.set(keyOf(outcome.collection, outcome.id), outcome as DocumentNeeded & { readonly id: string })
      }
    }
    if (needed.size === 0) return
    yield* Effect.forEach(needed, ([key, { collection, id }]) => Effect.map(docs.get(collection, id), (doc) => { read.set(key, doc) }), { concurrency: 'unbounded', discard: true })
  }
})

/**
 * A batch of events applied as one write batch of the document store: writes wait in memory and leave together at
 * the end (one bulk write per collection on MongoDB), and the reads of streams applied side by side are gathered.
 * One stream's events apply in order. A projection with concurrency 1 (documents gathering many streams) applies the
 * batch in its order; the others apply every stream of the batch at once, since gathered reads make that cheap.
 */
export const applyBatch = (projection: Projection, events: readonly RecordedEvent[]) => Effect.flatMap(DocumentStore, (docs) => docs.inBatch(
  projection.concurrency === 1
    ? Effect.zipRight(readAhead(docs, projection, events), Effect.forEach(events, projection.apply, { discard: true }))
    : Effect.forEach(byStream(events), (stream) => Effect.forEach(stream, projection.apply, { discard: true }), { concurrency: 'unbounded', discard: true }),
)).pipe(Effect.retry({ times: BATCH_ATTEMPTS - 1 }))

/**
 * A failed batch is applied again, whole, this many times in all before its events are handled one at a time. Applying
 * a batch again is safe (the position guard skips what its sent writes hold) and cheap beside one event at a time; the
 * usual cause is a document the batch read as absent that a command's process created meanwhile (read-your-writes on
 * a new stream), so the batch's insert of it failed: applied again, the batch reads it.
 */
const BATCH_ATTEMPTS = 3

/**
 * The projector role. Embedded (every projection on the store's own log, read models in a store with atomic batches):
 * one reader folds each batch of events into all read models in one transaction with their positions. Otherwise one
 * subscription per read model, on the store's own log when the projection needs the log's total order, else on the
 * event log (Kafka on scale-out); on scale-out, a log that delivers batches gets each applied as one write batch. They stop together
 * when the scope closes.
 */
export const projectorRole = (logger: Logger) => Effect.gen(function* () {
  const storeLog = yield* StoreLog
  const eventLog = yield* EventLog
  const docs = yield* DocumentStore
  const projections = yield* ReadModels
  if (storeLog === eventLog && storeLog.readBatches && documentsAtOnce(docs)) {
    const runtime = yield* Effect.runtime<DocumentStore>()
    const batches = yield* Effect.acquireRelease(
      projectInBatches(projections, storeLog, docs, runtime, logger.error),
      (running) => Effect.promise(() => running.stop()),
    )
    const metrics = yield* Effect.serviceOption(Prometheus)
    if (Option.isSome(metrics)) {
      for (const projection of projections) {
        const untrack = metrics.value.trackSubscriber('store', projection.name, () => batches.position(projection.name))
        yield* Effect.addFinalizer(() => Effect.sync(untrack))
      }
    }
    return
  }
  const run = yield* currentRunner
  // Batches where the read models live apart from the log (scale-out), so a round trip is what an event costs.
  const batched = storeLog !== eventLog
  const subscribe = (log: EventLogService, projection: Projection) => {
    const options = { name: projection.name, categories: projection.categories, concurrency: projection.concurrency }
    return batched && log.subscribeBatches
      ? untilScopeCloses(log.subscribeBatches(options, (events) => run(applyBatch(projection, events))))
      : scopedSubscription(log, options, (event) => run(projection.apply(event)))
  }
  yield* Effect.parallelFinalizers(Effect.forEach(projections, (projection) => subscribe(projection.ordering === 'log' ? storeLog : eventLog, projection), { discard: true }))
})
