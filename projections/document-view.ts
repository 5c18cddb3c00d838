import { Effect } from 'effect'
import type { Doc, DocumentStoreService, Filter } from '../ports/document-store.js'
import type { StoreUnavailable } from '../ports/event-store.js'
import type { Collection, Stored } from './projection.js'

/**
 * A projection's documents as its fold sees them: synchronous reads and writes, so replay can run every fold directly
 * (no effect per event). A read the view cannot answer from memory throws DocumentNeeded: the caller loads it from the
 * store and folds the event again, from the start, with that read answered. So a fold must be a plain function of the
 * event and what it reads: no side effects, no try/catch around the view.
 */
export interface DocumentView {
  readonly get: <D extends Stored<object>>(from: Collection<D>, id: string) => D | null
  /** The store's documents matching `filter` as they were before this event (the event's own writes are not in it). */
  readonly find: <D extends Stored<object>>(from: Collection<D>, filter: Filter) => readonly D[]
  readonly put: <D extends Stored<object>>(into: Collection<D>, doc: D) => void
  readonly delete: (from: Collection<Stored<object>>, id: string) => void
}

/** A read to load before the fold is run again: one document (`id`) or a query (`filter`). */
export class DocumentNeeded {
  constructor(
    readonly collection: string,
    readonly id: string | null,
    readonly filter: Filter | null,
    /** Names the read among those a fold made. */
    readonly key: string,
  ) {}
}

/** One write of a fold, in order (`doc` null: deleted). */
export interface FoldWrite {
  readonly collection: string
  readonly id: string
  readonly doc: Doc | null
}

/** What a view knows without a load: the document, null (known to be absent), or undefined (to be loaded). */
export type KnownDocument = (collection: string, id: string) => Doc | null | undefined

/**
 * The view of one fold at a time: its own writes first, then `known`, then the reads loaded for it. `attempt` runs a
 * fold from the start with its writes emptied; the loaded reads last until `settle` (the fold is done).
 */
export class FoldView implements DocumentView {
  readonly writes: FoldWrite[] = []
  private readonly loaded = new Map<string, Doc | null | readonly Doc[]>()

  constructor(private readonly known: KnownDocument) {}

  /** Runs `fold` from the start; answers the read it still needs, or what the fold answered when it completed. */
  attempt<A, R>(fold: (argument: A, view: DocumentView) => R, argument: A): R | DocumentNeeded {
    this.writes.length = 0
    try {
      return fold(argument, this)
    } catch (cause) {
      if (cause instanceof DocumentNeeded) return cause
      throw cause
    }
  }

  remember(needed: DocumentNeeded, value: Doc | null | readonly Doc[]): void {
    this.loaded.set(needed.key, value)
  }

  /** Forgets the reads loaded for the fold that just completed (the next fold may see them changed). */
  settle(): void {
    if (this.loaded.size > 0) this.loaded.clear()
  }

  get<D extends Stored<object>>(from: Collection<D>, id: string): D | null {
    for (let i = this.writes.length - 1; i >= 0; i--) {
      const write = this.writes[i]!
      if (write.id === id && write.collection === from.name) return write.doc as D | null
    }
    const known = this.known(from.name, id)
    if (known !== undefined) return known as D | null
    const key = `get\u0000${from.name}\u0000${id}`
    const loaded = this.loaded.get(key)
    if (loaded === undefined) throw new DocumentNeeded(from.name, id, null, key)
    return loaded as D | null
  }

  find<D extends Stored<object>>(from: Collection<D>, filter: Filter): readonly D[] {
    const key = `find\u0000${from.name}\u0000${JSON.stringify(filter)}`
    const loaded = this.loaded.get(key)
    if (loaded === undefined) throw new DocumentNeeded(from.name, null, filter, key)
    return loaded as readonly D[]
  }

  put<D extends Stored<object>>(into: Collection<D>, doc: D): void {
    this.writes.push({ collection: into.name, id: doc._id, doc: doc as unknown as Doc })
  }

  delete(from: Collection<Stored<object>>, id: string): void {
    this.writes.push({ collection: from.name, id, doc: null })
  }
}

/** Loads one read a fold needs. */
export const loadNeeded = (store: Pick<DocumentStoreService, 'get' | 'find'>, needed: DocumentNeeded): Effect.Effect<Doc | null | readonly Doc[], StoreUnavailable> =>
  needed.id !== null ? store.get(needed.collection, needed.id) : store.find(needed.collection, needed.filter ?? {})

/**
 * Runs a fold against a document store (the live path: one effect per event): each read it needs is loaded once and
 * the fold run again, then its writes reach the store in order.
 */
export const foldIntoStore = (store: DocumentStoreService, fold: (view: DocumentView) => void): Effect.Effect<void, StoreUnavailable> => {
  const view = new FoldView(() => undefined)
  const run: Effect.Effect<void, StoreUnavailable> = Effect.suspend(() => {
    const needed = view.attempt((_: undefined, documents) => fold(documents), undefined)
    if (needed instanceof DocumentNeeded) {
      return Effect.flatMap(loadNeeded(store, needed), (value) => {
        view.remember(needed, value)
        return run
      })
    }
    return Effect.forEach(view.writes, (write) => (write.doc === null ? store.delete(write.collection, write.id) : store.put(write.collection, write.doc)), { discard: true })
  })
  return run
}
