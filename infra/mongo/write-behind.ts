import { Effect } from 'effect'
import type { Doc } from '../../ports/document-store.js'
import type { StoreUnavailable } from '../../ports/event-store.js'

/** One buffered write: the whole new document, or null for a deletion. A fresh object per write, so it has an identity. */
interface PendingWrite {
  readonly doc: Doc | null
}

/** A write to send: `absent` when the server is known not to hold the id (so a plain insert suffices). */
export interface OutgoingWrite {
  readonly id: string
  readonly doc: Doc | null
  readonly absent: boolean
}

/** Sends one collection's writes (latest per id, in no particular order between ids). */
export type SendWrites = (collection: string, writes: readonly OutgoingWrite[]) => Effect.Effect<void, StoreUnavailable>

/**
 * The writes of one batch that were not sent yet, per collection and id, the latest winning. A write leaves the buffer
 * only once its flush was acknowledged, so a read during a flush still sees it rather than the older stored value.
 * Flushes take turns (one lock), so two flushes never race on one document. Fibers forked by the batch share it.
 *
 * A collection cleared inside the batch holds, on the server, exactly what the batch sent since (the batch is exclusive
 * work): the buffer keeps those ids, so a read of any other id answers "absent" without a round trip, and a new
 * document goes out as an insert. This is what makes a replay cheap: most of its reads are of documents not made yet.
 */
export interface WriteBehind {
  readonly get: (collection: string, id: string) => { readonly found: true; readonly doc: Doc | null } | { readonly found: false }
  readonly put: (collection: string, doc: Doc) => void
  readonly delete: (collection: string, id: string) => void
  readonly size: () => number
  /** Sends the pending writes of the given collections (all when omitted). */
  readonly flush: (collections?: readonly string[]) => Effect.Effect<void, StoreUnavailable>
  /** Empties a collection with `clearOnServer` while no flush runs, dropping its pending writes first. */
  readonly clear: (collection: string, clearOnServer: Effect.Effect<void, StoreUnavailable>) => Effect.Effect<void, StoreUnavailable>
  /** After the batch ended: fibers that outlive it must write directly. */
  closed: boolean
}

export const makeWriteBehind = (send: SendWrites): Effect.Effect<WriteBehind> => Effect.map(Effect.makeSemaphore(1), (lock) => {
  const pending = new Map<string, Map<string, PendingWrite>>()
  /** For collections cleared in this batch: the ids the server holds. */
  const onServer = new Map<string, Set<string>>()
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
    const known = onServer.get(collection)
    const outgoing = snapshot
      .map(([id, write]) => ({ id, doc: write.doc, absent: known !== undefined && !known.has(id) }))
      .filter((write) => !(write.doc === null && write.absent))
    return Effect.map(send(collection, outgoing), () => {
      for (const { id, doc } of outgoing) {
        if (doc === null) known?.delete(id)
        else known?.add(id)
      }
      // Only what this flush sent leaves the buffer; a newer write of the same id made meanwhile stays for the next one.
      for (const [id, write] of snapshot) if (writes.get(id) === write) writes.delete(id)
    })
  })

  return {
    get: (collection, id) => {
      const write = pending.get(collection)?.get(id)
      if (write) return { found: true, doc: write.doc && structuredClone(write.doc) }
      const known = onServer.get(collection)
      return known !== undefined && !known.has(id) ? { found: true, doc: null } : { found: false }
    },
    put: (collection, doc) => record(collection, doc._id, doc),
    delete: (collection, id) => record(collection, id, null),
    size: () => [...pending.values()].reduce((n, writes) => n + writes.size, 0),
    flush: (collections) => lock.withPermits(1)(Effect.forEach(collections ?? [...pending.keys()], flushOne, { discard: true })),
    clear: (collection, clearOnServer) => lock.withPermits(1)(Effect.suspend(() => {
      pending.delete(collection)
      onServer.delete(collection)
      return Effect.map(clearOnServer, () => { onServer.set(collection, new Set()) })
    })),
    closed: false,
  }
})
