import { Effect } from 'effect'
import type { Projection } from '../projections/projection.js'
import { DocumentNeeded, FoldView, loadNeeded } from '../projections/document-view.js'
import type { Doc, DocumentStoreService } from '../ports/document-store.js'
import type { RecordedEvent, StoreUnavailable } from '../ports/event-store.js'
import type { KeptDocuments } from './kept-documents.js'

/** Documents held in memory during a replay before they are written through to the store (bounds its memory). */
const HELD_DOCUMENTS = 100_000

export interface ReplayDocuments {
  /**
   * Folds one event into one projection's documents, in memory. Answers the read to load first (then fold the event
   * again), the reason the event was skipped, or undefined.
   */
  readonly fold: (projection: Projection, event: RecordedEvent) => DocumentNeeded | string | undefined
  /** Loads a read a fold needs (writing its collection through first when it is a query). */
  readonly load: (needed: DocumentNeeded) => Effect.Effect<void, StoreUnavailable>
  /** True when more than HELD_DOCUMENTS are held: flush before folding more. */
  readonly full: () => boolean
  /** Writes the documents still held to the underlying store. */
  readonly flush: Effect.Effect<void, StoreUnavailable>
  /** `load` at once, through the underlying store's synchronous entries (getNow, findNow, putNow, deleteNow). */
  readonly loadNow: (needed: DocumentNeeded) => void
  /** `flush` at once (see loadNow). */
  readonly flushNow: () => void
}

/**
 * The read models a replay rebuilds, folded in memory. The `rebuilt` collections were just cleared, so a replay's
 * reads of them are of documents it wrote itself: they are answered from memory (no query, no JSON parse), and each
 * document reaches the underlying store once, with its last value, when the replay flushes (or when more than
 * HELD_DOCUMENTS are held, or before a query of its collection). The ids written through are remembered, so a read of
 * any other id needs no round trip either. Reads of other collections, and of documents written through, are loaded.
 *
 * Memory: at most HELD_DOCUMENTS documents plus the writes of one read of the log (checked between reads), those of the
 * last write-through, and the ids of the documents written through (one string each, to answer reads of absent ids
 * without a round trip).
 *
 * The projections share their documents with this store: they build a new document for every change and never change
 * one they read (documents are frozen here when read, so a projection that tried would fail its tests).
 */
export const replayDocuments = (
  underlying: Pick<DocumentStoreService, 'get' | 'find' | 'put' | 'putMany' | 'delete' | 'getNow' | 'findNow' | 'putNow' | 'deleteNow'>,
  rebuilt: Iterable<string>,
  /**
   * `false` for collections that were not cleared (the live projector folding one batch): a document not held is
   * then loaded from the store rather than known to be absent, and every deletion reaches the store.
   */
  options: {
    readonly cleared?: boolean
    /** The live projector's documents kept between its transactions (this one's reads and writes are noted in it). */
    readonly kept?: KeptDocuments
    /**
     * Write-once collections (Projection.writeOnce) of a projector that folds each event once (positions committed with
     * the documents): a document not held is absent, as only its own event writes it, with a value that event
     * determines (written again, it is the same).
     */
    readonly writeOnce?: ReadonlySet<string>
  } = {},
): ReplayDocuments => {
  const cleared = options.cleared ?? true
  const kept = options.kept
  kept?.begin()
  const writeOnce = options.writeOnce ?? new Set<string>()
  /** Per rebuilt collection, the writes not written through yet (null: deleted). */
  const held = new Map<string, Map<string, Doc | null>>()
  /** Per rebuilt collection, the ids the underlying store holds. */
  const written = new Map<string, Set<string>>()
  /**
   * Per rebuilt collection, the documents of its last write-through, still answered from memory: the documents every
   * event changes (counters) are read again right after a flush, and need no load then.
   */
  const lastWritten = new Map<string, Map<string, Doc>>()
  for (const name of rebuilt) {
    held.set(name, new Map())
    written.set(name, new Set())
    lastWritten.set(name, new Map())
  }
  let heldCount = 0

  const view = new FoldView((collection, id) => {
    const writes = held.get(collection)
    if (writes === undefined) return undefined
    const doc = writes.get(id)
    // Frozen when a fold first reads it, not when written: most documents are never read back, and freezing every
    // write is a measurable share of a replay (docs/performance.md). A fold that changed a document it read would fail.
    if (doc !== undefined) return doc === null ? null : Object.freeze(doc)
    const recent = lastWritten.get(collection)!.get(id)
    if (recent !== undefined) return Object.freeze(recent)
    if (writeOnce.has(collection)) return null
    const known = kept?.lookup(collection, id)
    if (known !== undefined) return known === null ? null : Object.freeze(known)
    return !cleared || written.get(collection)!.has(id) ? undefined : null
  })

  /** A collection's held writes, taken to be written through (null when none): the documents to put, the ids to delete. */
  const takeWrites = (name: string) => {
    const writes = held.get(name)!
    if (writes.size === 0) return null
    const ids = written.get(name)!
    // In id order: a store that keeps documents in a B-tree by id (SQLite) then writes neighbouring pages in a row
    // instead of a random page per document. The default sort compares strings as `<` does, without a call per pair.
    const order = [...writes.keys()].sort()
    const puts: Doc[] = []
    const deletes: string[] = []
    const recent = new Map<string, Doc>()
    lastWritten.set(name, recent)
    const keep = writeOnce.has(name) ? undefined : kept
    for (const id of order) {
      const doc = writes.get(id)!
      if (doc !== null) {
        ids.add(id)
        puts.push(doc)
        recent.set(id, doc)
        keep?.note(name, id, doc)
      } else if (ids.delete(id) || !cleared) {
        deletes.push(id)
        keep?.note(name, id, null)
      }
    }
    heldCount -= writes.size
    writes.clear()
    return { puts, deletes }
  }
  const writeThrough = (name: string) => Effect.suspend(() => {
    const taken = takeWrites(name)
    if (taken === null) return Effect.void
    const { puts, deletes } = taken
    const stored = underlying.putMany ? underlying.putMany(name, puts) : Effect.forEach(puts, (doc) => underlying.put(name, doc), { discard: true })
    return deletes.length === 0 ? stored : Effect.zipRight(stored, Effect.forEach(deletes, (id) => underlying.delete(name, id), { discard: true }))
  })
  const now = <K extends 'getNow' | 'findNow' | 'putNow' | 'deleteNow'>(entry: K) => {
    const found = underlying[entry]
    if (!found) throw new Error(`the underlying document store has no ${entry}`)
    return found as NonNullable<DocumentStoreService[K]>
  }
  const writeThroughNow = (name: string) => {
    const taken = takeWrites(name)
    if (taken === null) return
    for (const doc of taken.puts) now('putNow')(name, doc)
    for (const id of taken.deletes) now('deleteNow')(name, id)
  }
  const heldCollections = () => [...held].flatMap(([name, writes]) => (writes.size > 0 ? [name] : []))
  const loaded = (needed: DocumentNeeded, value: Doc | null | readonly Doc[]) => {
    if (kept !== undefined && needed.id !== null) kept.note(needed.collection, needed.id, value as Doc | null)
    view.remember(needed, value)
  }

  return {
    fold: (projection, event) => {
      const outcome = view.attempt(projection.fold, event)
      if (outcome instanceof DocumentNeeded) return outcome
      view.settle()
      for (const write of view.writes) {
        const writes = held.get(write.collection)
        if (writes === undefined) throw new Error(`${projection.name} wrote ${write.collection}, which the replay does not rebuild`)
        const size = writes.size
        writes.set(write.id, write.doc)
        heldCount += writes.size - size
      }
      return outcome
    },
    load: (needed) => Effect.map(
      needed.filter !== null && held.has(needed.collection) ? Effect.zipRight(writeThrough(needed.collection), loadNeeded(underlying, needed)) : loadNeeded(underlying, needed),
      (value) => loaded(needed, value),
    ),
    loadNow: (needed) => {
      if (needed.filter !== null && held.has(needed.collection)) writeThroughNow(needed.collection)
      loaded(needed, needed.id !== null ? now('getNow')(needed.collection, needed.id) : now('findNow')(needed.collection, needed.filter ?? {}))
    },
    full: () => heldCount > HELD_DOCUMENTS,
    // Only the collections with writes held: a live batch touches a few of the projections' many collections.
    flush: Effect.zipRight(
      Effect.suspend(() => Effect.forEach(heldCollections(), writeThrough, { discard: true })),
      Effect.sync(() => kept?.settled()),
    ),
    flushNow: () => {
      for (const name of heldCollections()) writeThroughNow(name)
      kept?.settled()
    },
  }
}
