import { Effect } from 'effect'
import type { DomainEvent } from '../domain/streams.js'
import { DocumentNeeded, FoldView, loadNeeded } from '../projections/document-view.js'
import type { Projection } from '../projections/projection.js'
import type { Doc, DocumentStoreService } from '../ports/document-store.js'
import type { RecordedEvent, StoreUnavailable } from '../ports/event-store.js'

/** A collection whose documents a fold may read back: its writes are held, and reach the store once, with their last value. */
interface HeldCollection {
  readonly writeOnce: false
  readonly name: string
  /** The writes not written through yet (null: deleted). */
  readonly writes: Map<string, Doc | null>
  /** The ids the store holds. */
  readonly stored: Set<string>
  /**
   * The documents of the last write-through, still answered from memory: documents every event changes (counters)
   * are read again right after a flush, and need no load then.
   */
  recent: Map<string, Doc>
}

/** A write-once collection (Projection.writeOnce): its documents go to the store in the order folded, none is read back. */
interface WriteOnceCollection {
  readonly writeOnce: true
  readonly name: string
  pending: Doc[]
}

type RebuiltCollection = HeldCollection | WriteOnceCollection

export interface RebuildDocuments {
  /**
   * Folds one decoded event into one projection's documents, in memory. Answers the read to load first (then fold the
   * event again), or undefined.
   */
  readonly fold: (projection: Projection, event: DomainEvent, recorded: RecordedEvent) => DocumentNeeded | undefined
  /** Loads a read a fold needs (writing its collection through first when it is a query). */
  readonly load: (needed: DocumentNeeded) => Effect.Effect<void, StoreUnavailable>
  /**
   * Writes every document held or gathered to the store: after each read of the log, so a store that writes on another
   * thread (SQLite's inBatchOffThread) gets work while the fold goes on, and documents leave memory young.
   */
  readonly flush: Effect.Effect<void, StoreUnavailable>
}

/**
 * The read models of `projections`, rebuilt into their just-cleared collections. Every read of them is of a document
 * the rebuild wrote itself, so it is answered from memory (no query, no JSON parse); a document reaches the store
 * once per read of the log that changed it, with its last value, when the rebuild flushes after that read (or before
 * a query of its collection). Write-once collections skip all of that: their documents are inserted in batches as
 * folded. Reads of other collections, and of documents written through, are loaded.
 *
 * Memory: the writes of one read of the log, those of the last write-through, and the ids of the documents written
 * through (one string each, to answer reads of absent ids without a round trip). Flushing after every read keeps the
 * documents young, so the collector copies and promotes fewer of them than when thousands were held across reads.
 *
 * The projections share their documents with this store: they build a new document for every change and never change
 * one they read. Every document type is readonly, so a fold that tried would not compile; the documents are not
 * frozen here (freezing each one read cost a third of the folding).
 */
export const rebuildDocuments = (store: DocumentStoreService, projections: readonly Projection[]): RebuildDocuments => {
  const collections = new Map<string, RebuiltCollection>()
  for (const projection of projections) {
    const writeOnce = new Set(projection.writeOnce ?? [])
    for (const name of projection.collections) {
      collections.set(name, writeOnce.has(name)
        ? { writeOnce: true, name, pending: [] }
        : { writeOnce: false, name, writes: new Map(), stored: new Set(), recent: new Map() })
    }
  }

  const view = new FoldView((name, id) => {
    const collection = collections.get(name)
    if (collection === undefined) return undefined
    if (collection.writeOnce) return null
    // A collection the rebuild has not written (one most events look up, such as purged jobs) holds nothing.
    if (collection.writes.size === 0 && collection.stored.size === 0) return null
    const doc = collection.writes.get(id)
    if (doc !== undefined) return doc
    // Neither held nor stored: absent (a new document, which most events' first read is). The recent ones are stored.
    if (!collection.stored.has(id)) return null
    return collection.recent.get(id)
  })

  const insert = (name: string, docs: readonly Doc[]) => (store.insertMany ?? store.putMany)?.(name, docs)
    ?? Effect.forEach(docs, (doc) => store.put(name, doc), { discard: true })

  const writeThrough = (collection: RebuiltCollection): Effect.Effect<void, StoreUnavailable> => Effect.suspend(() => {
    if (collection.writeOnce) {
      const docs = collection.pending
      if (docs.length === 0) return Effect.void
      collection.pending = []
      return insert(collection.name, docs)
    }
    const { writes, stored } = collection
    if (writes.size === 0) return Effect.void
    // In the order folded: the SQLite writer thread puts each batch in id order itself, off this thread.
    const inserts: Doc[] = []
    const replaces: Doc[] = []
    const deletes: string[] = []
    const recent = new Map<string, Doc>()
    for (const [id, doc] of writes) {
      if (doc === null) {
        if (stored.delete(id)) deletes.push(id)
        continue
      }
      if (stored.has(id)) replaces.push(doc)
      else {
        stored.add(id)
        inserts.push(doc)
      }
      recent.set(id, doc)
    }
    collection.recent = recent
    writes.clear()
    return Effect.all([
      insert(collection.name, inserts),
      store.putMany ? store.putMany(collection.name, replaces) : Effect.forEach(replaces, (doc) => store.put(collection.name, doc), { discard: true }),
      Effect.forEach(deletes, (id) => store.delete(collection.name, id), { discard: true }),
    ], { discard: true })
  })

  return {
    fold: (projection, event, recorded) => {
      const outcome = view.attempt((envelope, documents) => projection.foldDecoded(event, envelope, documents), recorded)
      if (outcome instanceof DocumentNeeded) return outcome
      view.settle()
      for (const write of view.writes) {
        const collection = collections.get(write.collection)
        if (collection === undefined) throw new Error(`${projection.name} wrote ${write.collection}, which the replay does not rebuild`)
        if (collection.writeOnce) {
          if (write.doc === null) throw new Error(`${projection.name} deleted from ${write.collection}, which it declared write-once`)
          collection.pending.push(write.doc)
        } else collection.writes.set(write.id, write.doc)
      }
      return undefined
    },
    load: (needed) => {
      const collection = collections.get(needed.collection)
      const loaded = needed.filter !== null && collection !== undefined
        ? Effect.zipRight(writeThrough(collection), loadNeeded(store, needed))
        : loadNeeded(store, needed)
      return Effect.map(loaded, (value) => view.remember(needed, value))
    },
    // Suspended: each flush walks the collections anew (an iterator taken once would be spent after the first).
    flush: Effect.suspend(() => Effect.forEach(collections.values(), writeThrough, { discard: true })),
  }
}
