import { Effect } from 'effect'
import t from 'tap'
import { makeMemoryDocumentStore } from '../../infra/memory/document-store.js'
import { applyBatch } from '../../infra/roles/projector.js'
import { DocumentStore, type Doc, type DocumentStoreService } from '../../ports/document-store.js'
import { specHistories } from '../helpers/projection-spec.js'

/**
 * A batch applies the streams of a projection with concurrency above 1 side by side, so one stream's reads and writes
 * interleave with another's wherever the store answers later (always, on MongoDB). Here every read of the store waits a
 * seeded number of turns, so the streams interleave in many orders: each area's projection-spec history, applied in
 * one batch, must leave the documents that applying each event alone leaves. A projection whose documents take events
 * of several streams and that applies them side by side fails this (it must use concurrency 1).
 */
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8]

const seeded = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31
  return seed / 2 ** 31
}

/** The memory store, its reads answered after 0 to 3 turns of the scheduler. */
const slowReads = (seed: number): DocumentStoreService => {
  const store = makeMemoryDocumentStore()
  const random = seeded(seed)
  const later = <A, E>(read: Effect.Effect<A, E>) => Effect.zipRight(Effect.repeatN(Effect.yieldNow(), Math.floor(random() * 4)), read)
  return { ...store, get: (collection, id) => later(store.get(collection, id)), find: (collection, filter, options) => later(store.find(collection, filter, options)) }
}

const byId = (documents: readonly Doc[]) => [...documents].sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0))

t.test('each area\'s history, in one batch with interleaved reads, leaves what one event at a time leaves', async (t) => {
  for await (const { name, projection, events, expected } of specHistories()) {
    for (const seed of SEEDS) {
      const docs = slowReads(seed)
      const run = <A, E>(effect: Effect.Effect<A, E, DocumentStore>) => Effect.runPromise(Effect.provideService(effect, DocumentStore, docs))
      await run(applyBatch(projection, events))
      for (const collection of projection.collections) {
        t.same(byId(await run(docs.find(collection, {}))), byId(expected[collection] ?? []), `${name}: ${projection.name}, seed ${seed}: ${collection}`)
      }
    }
  }
})
