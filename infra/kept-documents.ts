import type { Doc, DocumentStoreService } from '../ports/document-store.js'

/** Documents kept between batches (all forgotten past this many, then gathered again). */
const CAPACITY = 20_000

type Known = Map<string, Map<string, Doc | null>>

const noteIn = (into: Known, collection: string, id: string, doc: Doc | null) => {
  let documents = into.get(collection)
  if (documents === undefined) into.set(collection, (documents = new Map()))
  documents.set(id, doc)
}

export interface KeptDocuments {
  /** A transaction starts: what was kept is forgotten if anything changed the collections since the last commit. */
  readonly begin: () => void
  /** The stored value of a document as the running transaction left it, or undefined when not known. */
  readonly lookup: (collection: string, id: string) => Doc | null | undefined
  /** A document the running transaction read from the store, or wrote to it (null: absent, or deleted). */
  readonly note: (collection: string, id: string, doc: Doc | null) => void
  /**
   * The running transaction wrote its last document of the collections: the generation it leaves is taken now, under
   * its lock, as one taken after its commit could already include another connection's next commit.
   */
  readonly settled: () => void
  /** The running transaction committed: what it read and wrote is kept. */
  readonly committed: () => void
  /** The running transaction was rolled back: what it read and wrote is forgotten. */
  readonly rolledBack: () => void
}

/**
 * The stored value of documents a live projector's committed transactions read or wrote, so the next batch need not
 * read them again (about half its reads are of documents the batch before wrote). They are kept only while the
 * store's generation of the collections stays where the last commit left it: any other write to them (another
 * connection's commit, a write outside the projector, a rolled back transaction) makes the next transaction start
 * from nothing. A transaction's own reads and writes are kept apart until it commits, so a rolled back one leaves
 * nothing behind. A store without generations keeps nothing.
 *
 * Documents are shared with the projections' folds, which never change a document they read (documents are frozen when
 * handed to a fold).
 */
export const keptDocuments = (store: Pick<DocumentStoreService, 'generation'>, collections: readonly string[]): KeptDocuments => {
  let kept: Known = new Map()
  let keptCount = 0
  /** The running transaction's reads and writes. */
  let pending: Known = new Map()
  /** The generation the last commit left, or null when nothing is kept. */
  let generation: number | null = null
  /** The generation the running transaction leaves, once it settled. */
  let leaves: number | null = null
  const forget = () => {
    kept = new Map()
    keptCount = 0
    generation = null
  }
  return {
    begin: () => {
      pending = new Map()
      leaves = null
      if (generation !== null && store.generation?.(collections) !== generation) forget()
    },
    lookup: (collection, id) => {
      const written = pending.get(collection)?.get(id)
      return written !== undefined ? written : kept.get(collection)?.get(id)
    },
    note: (collection, id, doc) => noteIn(pending, collection, id, doc),
    settled: () => { leaves = store.generation?.(collections) ?? null },
    committed: () => {
      if (leaves === null) return forget()
      for (const [collection, documents] of pending) {
        let into = kept.get(collection)
        if (into === undefined) kept.set(collection, (into = new Map()))
        const size = into.size
        for (const [id, doc] of documents) into.set(id, doc)
        keptCount += into.size - size
      }
      pending = new Map()
      generation = leaves
      if (keptCount > CAPACITY) forget()
    },
    rolledBack: () => {
      pending = new Map()
      forget()
    },
  }
}
