import { Context, type Effect } from 'effect'
import type { StoreUnavailable } from './event-store.js'

export type Doc = Record<string, unknown> & { readonly _id: string }

/**
 * A filter value: equality, `$in`, `$nin` (none of the values; a missing field matches), ranges, or substring
 * (`$contains`, case-insensitive). Fields may be dotted paths.
 */
export type FilterValue =
  | string | number | boolean | null
  | { readonly $in: readonly (string | number | boolean)[] }
  | { readonly $nin: readonly (string | number | boolean)[] }
  | { readonly $gt?: string | number; readonly $gte?: string | number; readonly $lt?: string | number; readonly $lte?: string | number }
  | { readonly $contains: string }
export type Filter = Readonly<Record<string, FilterValue>>

export interface FindOptions {
  readonly sort?: readonly (readonly [field: string, dir: 'asc' | 'desc'])[]
  readonly skip?: number
  readonly limit?: number
}

/** An index a projection's queries need: fields in order, 1 ascending, -1 descending. */
export interface IndexDeclaration {
  readonly collection: string
  readonly fields: readonly (readonly [field: string, direction: 1 | -1])[]
  /**
   * Kept by the embedded store too, which otherwise scans a collection (every index costs each write of it): for a
   * query a processor runs on every turn over a collection that only grows.
   */
  readonly embedded?: boolean
}

export interface DocumentStoreService {
  readonly get: (collection: string, id: string) => Effect.Effect<Doc | null, StoreUnavailable>
  readonly put: (collection: string, doc: Doc) => Effect.Effect<void, StoreUnavailable>
  /** Optional: puts many documents of one collection in one call (replay's write-through); without it, one put each. */
  readonly putMany?: (collection: string, docs: readonly Doc[]) => Effect.Effect<void, StoreUnavailable>
  /**
   * Optional: adds documents whose ids the collection does not hold (a rebuild into a cleared collection), failing on
   * an id it holds; without it, putMany. Cheaper than a put where the store must look for the id to replace first.
   */
  readonly insertMany?: (collection: string, docs: readonly Doc[]) => Effect.Effect<void, StoreUnavailable>
  readonly delete: (collection: string, id: string) => Effect.Effect<void, StoreUnavailable>
  /**
   * Optional: creates the document unless one with its id exists, in one atomic step, and answers whether it did.
   * Never part of a batch. Lets a command's process make the document a projection makes from the first event of a new
   * stream (projections/read-your-writes.ts): whichever of it and the projector comes second finds the document there.
   */
  readonly create?: (collection: string, doc: Doc) => Effect.Effect<boolean, StoreUnavailable>
  readonly find: (collection: string, filter: Filter, options?: FindOptions) => Effect.Effect<readonly Doc[], StoreUnavailable>
  readonly count: (collection: string, filter: Filter) => Effect.Effect<number, StoreUnavailable>
  /** Removes every document of a collection (used by replay). */
  readonly clear: (collection: string) => Effect.Effect<void, StoreUnavailable>
  /** Creates the declared indexes that do not exist yet (idempotent); called once at start-up. May ignore them. */
  readonly ensureIndexes: (indexes: readonly IndexDeclaration[]) => Effect.Effect<void, StoreUnavailable>
  /**
   * Runs `work` with its writes grouped for speed, for exclusive bulk work such as replay. Inside, reads see the
   * work's own writes (a get sees the last write of its key; a find or count sees every earlier write). A nested call
   * joins the outer group. SQLite: one transaction, committed when `work` succeeds and rolled back when it fails
   * (writes of any other fiber made meanwhile join it). MongoDB: a write-behind buffer of the work's fiber and the
   * fibers it forks, sent as bulk writes at the end (and before a query); when `work` fails, the writes not sent yet
   * are dropped, so each document holds a prefix of its own writes. Adapters without grouping just run `work`.
   */
  readonly inBatch: <A, E, R>(work: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreUnavailable, R>
  /**
   * Optional: `inBatch` for exclusive bulk work (replay) whose store side runs on another thread: `work` gets a store
   * whose writes leave at once (the calling thread only turns documents into the store's form), whose reads see the
   * work's own writes, all in one batch committed when `work` succeeds and dropped when it fails.
   */
  readonly inBatchOffThread?: <A, E, R>(work: (store: DocumentStoreService) => Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreUnavailable, R>
  /**
   * Set by stores whose operations complete synchronously and whose `inBatch` is one all-or-nothing transaction
   * (SQLite): work run synchronously in a batch can then keep a reader's position with its documents, exactly-once.
   */
  readonly atomicBatches?: true
  /**
   * Optional: a number that changes whenever a document of the collections may have changed, whoever changed it (this
   * process or another), so a caller may keep what it derived from them while the number stays the same. Stores that
   * cannot tell leave it out.
   */
  readonly generation?: (collections: readonly string[]) => number
  /**
   * Optional, for stores that answer in the calling turn (SQLite, memory): `get`, `find`, `put` and `delete` done at
   * once, without an effect run, throwing StoreUnavailable where the effects fail with it. A store has all the `...Now`
   * entries or none; callers fall back to the effects without them (MongoDB).
   */
  readonly getNow?: (collection: string, id: string) => Doc | null
  readonly findNow?: (collection: string, filter: Filter, options?: FindOptions) => readonly Doc[]
  readonly putNow?: (collection: string, doc: Doc) => void
  readonly deleteNow?: (collection: string, id: string) => void
  /**
   * Optional: `getNow`'s answer, one copy shared by every call while the document stays the same (parsed once, not per
   * call), for a caller that looks at a document many times before it changes. The caller only reads it: never
   * changes it, keeps it or hands it on (take `getNow`'s own copy for that).
   */
  readonly peekNow?: (collection: string, id: string) => Doc | null
  /**
   * Optional: `inBatch` for synchronous work, which returns its answer or throws: committed when `work` returns, rolled
   * back when it throws (the error is thrown on). A nested call joins the outer batch, as a nested `inBatch` does.
   */
  readonly inBatchNow?: <A>(work: () => A) => A
}

export class DocumentStore extends Context.Tag('DocumentStore')<DocumentStore, DocumentStoreService>() {}
