import { Effect } from 'effect'
import type { Doc, DocumentStoreService } from '../ports/document-store.js'
import type { StoreUnavailable } from '../ports/event-store.js'

/** Documents held in memory during a replay before they are written through to the store (bounds its memory). */
const HELD_DOCUMENTS = 100_000

export interface ReplayDocuments {
  /** The document store the projections fold into during the replay. */
  readonly store: DocumentStoreService
  /** Writes the documents still held to the underlying store. */
  readonly flush: Effect.Effect<void, StoreUnavailable>
}

/**
 * The read models a replay rebuilds, folded in memory. The `rebuilt` collections were just cleared, so a replay's
 * reads of them are of documents it wrote itself: they are answered from memory (no query, no JSON parse), and each
 * document reaches the underlying store once, with its last value, when the replay flushes (or when more than
 * HELD_DOCUMENTS are held, or before a query of its collection). The ids written through are remembered, so a read of
 * any other id needs no round trip either. Other collections pass through.
 *
 * The projections share their documents with this store: they build a new document for every change and never change
 * one they read (documents are frozen here, so a projection that tried would fail its tests).
 */
export const replayDocuments = (underlying: DocumentStoreService, rebuilt: Iterable<string>): ReplayDocuments => {
  /** Per rebuilt collection, the writes not written through yet (null: deleted). */
  const held = new Map<string, Map<string, Doc | null>>()
  /** Per rebuilt collection, the ids the underlying store holds. */
  const written = new Map<string, Set<string>>()
  for (const name of rebuilt) {
    held.set(name, new Map())
    written.set(name, new Set())
  }
  let heldCount = 0

  const writeThrough = (name: string) => Effect.suspend(() => {
    const writes = held.get(name)!
    if (writes.size === 0) return Effect.void
    const ids = written.get(name)!
    // In id order: a store that keeps documents in a B-tree by id (SQLite) then writes neighbouring pages in a row
    // instead of a random page per document.
    const batch = [...writes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    heldCount -= writes.size
    writes.clear()
    return Effect.forEach(batch, ([id, doc]) => {
      if (doc !== null) {
        ids.add(id)
        return underlying.put(name, doc)
      }
      return ids.delete(id) ? underlying.delete(name, id) : Effect.void
    }, { discard: true })
  })
  const flush = Effect.forEach([...held.keys()], writeThrough, { discard: true })

  const hold = (name: string, writes: Map<string, Doc | null>, id: string, doc: Doc | null) => {
    if (!writes.has(id)) heldCount += 1
    writes.set(id, doc)
    return heldCount > HELD_DOCUMENTS ? flush : Effect.void
  }

  const store: DocumentStoreService = {
    get: (name, id) => {
      const writes = held.get(name)
      if (!writes) return underlying.get(name, id)
      const doc = writes.get(id)
      if (doc !== undefined) return Effect.succeed(doc)
      return written.get(name)!.has(id) ? underlying.get(name, id) : Effect.succeed(null)
    },
    put: (name, doc) => {
      const writes = held.get(name)
      return writes ? hold(name, writes, doc._id, Object.freeze(doc)) : underlying.put(name, doc)
    },
    delete: (name, id) => {
      const writes = held.get(name)
      return writes ? hold(name, writes, id, null) : underlying.delete(name, id)
    },
    find: (name, filter, options) => held.has(name) ? Effect.zipRight(writeThrough(name), underlying.find(name, filter, options)) : underlying.find(name, filter, options),
    count: (name, filter) => held.has(name) ? Effect.zipRight(writeThrough(name), underlying.count(name, filter)) : underlying.count(name, filter),
    clear: (name) => Effect.suspend(() => {
      const writes = held.get(name)
      if (writes) {
        heldCount -= writes.size
        writes.clear()
        written.get(name)!.clear()
      }
      return underlying.clear(name)
    }),
    ensureIndexes: (indexes) => underlying.ensureIndexes(indexes),
    inBatch: (work) => underlying.inBatch(work),
  }
  return { store, flush }
}
