import { Effect } from 'effect'
import type { Doc } from '../../ports/document-store.js'
import type { StoreUnavailable } from '../../ports/event-store.js'

/** One buffered write: the whole new document, or null for a deletion. A fresh object per write, so it has an identity. */
interface PendingWrite {
  readonly doc: Doc | null
}

/** Sends one collection's writes (latest per id, in no particular order between ids). */
export type SendWrites = (collection: string, writes: readonly (readonly [id: string, doc: Doc | null])[]) => Effect.Effect<void, StoreUnavailable>

/**
 * The writes of one batch that were not sent yet, per collection and id, the latest winning. A write leaves the buffer
 * only once its flush was acknowledged, so a read during a flush still sees it rather than the older stored value.
 * Flushes take turns (one lock), so two flushes never race on one document. Fibers forked by the batch share it.
 */
export interface WriteBehind {
  readonly get: (collection: string, id: string) => { readonly found: true; readonly doc: Doc | null } | { readonly found: false }
  readonly put: (collection: string, doc: Doc) => void
  readonly delete: (collection: string, id: string) => void
  readonly size: () => number
  /** Sends the pending writes of the given collections (all when omitted). */
  readonly flush: (collections?: readonly string[]) => Effect.Effect<void, StoreUnavailable>
  /** Runs `effect` while no flush runs, with the collection's pending writes dropped first (for `clear`). */
  readonly dropping: <A>(collection: string, effect: Effect.Effect<A, StoreUnavailable>) => Effect.Effect<A, StoreUnavailable>
  /** After the batch ended: fibers that outlive it must write directly. */
  closed: boolean
}

export const makeWriteBehind = (send: SendWrites): Effect.Effect<WriteBehind> => Effect.map(Effect.makeSemaphore(1), (lock) => {
  const pending = new Map<string, Map<string, PendingWrite>>()
  const of = (collection: string) => {
    let writes = pending.get(collection)
    if (!writes) pending.set(collection, (writes = new Map()))
    return writes
  }
  // Copies in and out: the caller may change its objects after a put or after a get.
  const record = (collection: string, id: string, doc: Doc | null) => { of(collection).set(id, { doc: doc && structuredClone(doc) }) }

  const flushOne = (collection: string) => Effect.suspend(() => {
    const writes = pending.get(collection)
    if (!writes || writes.size === 0) return Effect.void
    const snapshot = [...writes]
    return Effect.map(send(collection, snapshot.map(([id, write]) => [id, write.doc] as const)), () => {
      // Only what this flush sent leaves the buffer; a newer write of the same id made meanwhile stays for the next one.
      for (const [id, write] of snapshot) if (writes.get(id) === write) writes.delete(id)
    })
  })

  return {
    get: (collection, id) => {
      const write = pending.get(collection)?.get(id)
      return write ? { found: true, doc: write.doc && structuredClone(write.doc) } : { found: false }
    },
    put: (collection, doc) => record(collection, doc._id, doc),
    delete: (collection, id) => record(collection, id, null),
    size: () => [...pending.values()].reduce((n, writes) => n + writes.size, 0),
    flush: (collections) => lock.withPermits(1)(Effect.forEach(collections ?? [...pending.keys()], flushOne, { discard: true })),
    dropping: (collection, effect) => lock.withPermits(1)(Effect.suspend(() => {
      pending.delete(collection)
      return effect
    })),
    closed: false,
  }
})
