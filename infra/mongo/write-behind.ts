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
/** Reads the documents of the given ids that exist (any order). */
export type ReadMany = (collection: string, ids: readonly string[]) => Effect.Effect<readonly Doc[], StoreUnavailable>

/** What the server holds for an id, as far as the batch knows: a document it read, none, or one it wrote itself. */
type OnServer = Doc | null | typeof WRITTEN
const WRITTEN = Symbol('written by this batch, not kept')

/** Ids per `$in` query of a gathered read. */
const IDS_PER_READ = 500

/**
 * The writes of one batch that were not sent yet, per collection and id, the latest winning, and what the batch
 * learnt of the server. A write leaves the buffer only once its flush was acknowledged, so a read during a flush still
 * sees it rather than the older stored value. Flushes take turns (one lock), so two flushes never race on one
 * document. Fibers forked by the batch share it.
 *
 * Reads the buffer cannot answer are gathered: every read asked within one turn of the event loop leaves as one `$in`
 * query per collection (a batch of events applied at once asks for many documents together), and the answers are
 * kept for the batch, absent ids included, so a later read of them needs no round trip and a first write of an absent
 * id goes out as an insert. Only the batch writes these collections while it runs (the batch is exclusive work: a
 * replay, or a projector's batch of its own read model), so what it read stays true but for its own writes.
 *
 * A collection cleared inside the batch holds, on the server, exactly what the batch sent since: a read of any other
 * id answers "absent" without a round trip. This is what makes a replay cheap: most of its reads are of documents not
 * made yet.
 */
export interface WriteBehind {
  /** The document as the batch sees it: its own latest write, else what it knows of the server, else a gathered read. */
  readonly get: (collection: string, id: string) => Effect.Effect<Doc | null, StoreUnavailable>
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

export const makeWriteBehind = (send: SendWrites, readMany: ReadMany): Effect.Effect<WriteBehind> => Effect.map(Effect.makeSemaphore(1), (lock) => {
  const pending = new Map<string, Map<string, PendingWrite>>()
  const onServer = new Map<string, Map<string, OnServer>>()
  /** Collections cleared in this batch: `onServer` lists every id the server holds. */
  const cleared = new Set<string>()
  const of = <V>(maps: Map<string, Map<string, V>>, collection: string) => {
    let map = maps.get(collection)
    if (!map) maps.set(collection, (map = new Map()))
    return map
  }
  // Copies in and out: the caller may change its objects after a put or after a get.
  const record = (collection: string, id: string, doc: Doc | null) => { of(pending, collection).set(id, { doc: doc && structuredClone(doc) }) }
  const isAbsent = (collection: string, id: string) => {
    const known = onServer.get(collection)?.get(id)
    return known === null || (known === undefined && cleared.has(collection))
  }

  /** Reads waiting for the next gathered query, per collection and id. */
  let waiting = new Map<string, Map<string, ((answer: Effect.Effect<Doc | null | undefined, StoreUnavailable>) => void)[]>>()
  const readWaiting = () => {
    const asked = waiting
    waiting = new Map()
    for (const [collection, readers] of asked) {
      const ids = [...readers.keys()]
      const chunks = Array.from({ length: Math.ceil(ids.length / IDS_PER_READ) }, (_, i) => ids.slice(i * IDS_PER_READ, (i + 1) * IDS_PER_READ))
      void Effect.runPromise(Effect.either(Effect.forEach(chunks, (chunk) => readMany(collection, chunk), { concurrency: 'unbounded' }))).then((answer) => {
        if (answer._tag === 'Left') {
          for (const resumes of readers.values()) for (const resume of resumes) resume(Effect.fail(answer.left))
          return
        }
        const found = new Map(answer.right.flat().map((doc) => [doc._id, doc]))
        const known = of(onServer, collection)
        for (const [id, resumes] of readers) {
          // A write acknowledged meanwhile is newer than this answer: keep what the write recorded.
          if (!known.has(id)) known.set(id, found.get(id) ?? null)
          for (const resume of resumes) resume(Effect.sync(() => answerOf(collection, id)))
        }
      })
    }
  }
  const answerOf = (collection: string, id: string): Doc | null | undefined => {
    const write = pending.get(collection)?.get(id)
    if (write) return write.doc && structuredClone(write.doc)
    const known = onServer.get(collection)?.get(id)
    if (known === undefined) return cleared.has(collection) ? null : undefined
    return known === WRITTEN ? undefined : known && structuredClone(known)
  }

  const flushOne = (collection: string) => Effect.suspend(() => {
    const writes = pending.get(collection)
    if (!writes || writes.size === 0) return Effect.void
    const snapshot = [...writes]
    const outgoing = snapshot
      .map(([id, write]) => ({ id, doc: write.doc, absent: isAbsent(collection, id) }))
      .filter((write) => !(write.doc === null && write.absent))
    return Effect.map(send(collection, outgoing), () => {
      const known = of(onServer, collection)
      for (const { id, doc } of outgoing) known.set(id, doc === null ? null : WRITTEN)
      // Only what this flush sent leaves the buffer; a newer write of the same id made meanwhile stays for the next one.
      for (const [id, write] of snapshot) if (writes.get(id) === write) writes.delete(id)
    })
  })

  return {
    get: (collection, id) => Effect.suspend(() => {
      const known = answerOf(collection, id)
      if (known !== undefined) return Effect.succeed(known)
      const gathered = Effect.async<Doc | null | undefined, StoreUnavailable>((resume) => {
        if (waiting.size === 0) setImmediate(readWaiting)
        const readers = of(waiting, collection)
        readers.set(id, [...(readers.get(id) ?? []), resume])
      })
      // Undefined: the batch itself wrote the document meanwhile and did not keep it, so it is read back.
      return Effect.flatMap(gathered, (doc) => (doc === undefined ? Effect.map(readMany(collection, [id]), (docs) => docs[0] ?? null) : Effect.succeed(doc)))
    }),
    put: (collection, doc) => record(collection, doc._id, doc),
    delete: (collection, id) => record(collection, id, null),
    size: () => [...pending.values()].reduce((n, writes) => n + writes.size, 0),
    flush: (collections) => lock.withPermits(1)(Effect.forEach(collections ?? [...pending.keys()], flushOne, { discard: true })),
    clear: (collection, clearOnServer) => lock.withPermits(1)(Effect.suspend(() => {
      pending.delete(collection)
      onServer.delete(collection)
      cleared.delete(collection)
      return Effect.map(clearOnServer, () => { cleared.add(collection) })
    })),
    closed: false,
  }
})
