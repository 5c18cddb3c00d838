import { Effect, FiberRef, Layer, type Scope } from 'effect'
import { MongoClient, MongoServerError, type AnyBulkWriteOperation, type Filter as MongoFilter, type Document } from 'mongodb'
import { DocumentStore, type Doc, type DocumentStoreService, type Filter, type FilterValue } from '../../ports/document-store.js'
import { StoreUnavailable } from '../../ports/event-store.js'
import { makeWriteBehind, type ReadMany, type SendWrites, type WriteBehind } from './write-behind.js'

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

const toMongoCondition = (value: FilterValue): unknown => {
  if (value === null || typeof value !== 'object') return value
  if ('$in' in value) return { $in: value.$in }
  if ('$nin' in value) return { $nin: value.$nin }
  if ('$contains' in value) return { $regex: escapeRegex(value.$contains), $options: 'i' }
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined))
}

/** Our filter language is a subset of MongoDB's (array equality included), so the translation is direct. */
const toMongoFilter = (filter: Filter): MongoFilter<Document> =>
  Object.fromEntries(Object.entries(filter).map(([field, value]) => [field, toMongoCondition(value)]))

export interface MongoDocumentStoreOptions {
  readonly url: string
  readonly database?: string
  /** Prefix of collection names, so several deployments can share one database. */
  readonly prefix?: string
}

const attempt = <A>(f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: (cause) => new StoreUnavailable({ cause }) })

/**
 * Documents per write command. FerretDB 1.24 (SQLite) stalls on an update command that replaces about 100 existing
 * documents or more (measured: 90 answers in 0.2 s, 100 never), so flushes send at most this many per command.
 */
const WRITES_PER_COMMAND = 50
/** The server's error code for an insert of an id that exists. */
const DUPLICATE_KEY = 11000
/** Pending writes of a batch above which it flushes early, to bound its memory. */
const MAX_PENDING_WRITES = 5_000

/** Connects; the client is closed when the scope closes. Indexes come from the projections (ensureIndexes). */
export const mongoDocumentStore = (options: MongoDocumentStoreOptions): Effect.Effect<DocumentStoreService, StoreUnavailable, Scope.Scope> => Effect.gen(function* () {
  const client = yield* Effect.acquireRelease(
    attempt(() => new MongoClient(options.url, { serverSelectionTimeoutMS: 10_000 }).connect()),
    (connected) => Effect.promise(() => connected.close()),
  )
  const db = client.db(options.database ?? 'scrapeworks')
  const prefix = options.prefix ?? 'rm_'
  const collection = (name: string) => db.collection<Document>(`${prefix}${name}`)

  // Inserts, then replacements, then deletions: the driver sends each run of one kind as one command, and the order
  // between different ids does not matter (the buffer holds one write per id).
  const sendWrites: SendWrites = (name, writes) => {
    const operations: AnyBulkWriteOperation<Document>[] = [
      ...writes.flatMap(({ doc, absent }) => (doc !== null && absent ? [{ insertOne: { document: doc as Document } }] : [])),
      ...writes.flatMap(({ id, doc, absent }) => (doc !== null && !absent ? [{ replaceOne: { filter: { _id: id as never }, replacement: doc, upsert: true } }] : [])),
      ...writes.flatMap(({ id, doc }) => (doc === null ? [{ deleteOne: { filter: { _id: id as never } } }] : [])),
    ]
    return Effect.forEach(chunksOf(operations, WRITES_PER_COMMAND), (chunk) => attempt(async () => {
      await collection(name).bulkWrite(chunk, { ordered: true })
    }), { discard: true })
  }

  const readMany: ReadMany = (name, ids) => attempt(async () => (await collection(name).find({ _id: { $in: ids as never[] } }).toArray()) as unknown as Doc[])

  // The batch the current fiber runs in, if any: fibers forked inside a batch inherit it, every other fiber sees null.
  const currentBatch = yield* FiberRef.make<WriteBehind | null>(null)
  const withBatch = <A, E, R>(direct: Effect.Effect<A, E, R>, batched: (batch: WriteBehind) => Effect.Effect<A, E, R>) =>
    Effect.flatMap(FiberRef.get(currentBatch), (batch) => (batch === null || batch.closed ? direct : batched(batch)))
  const boundMemory = (batch: WriteBehind) => (batch.size() >= MAX_PENDING_WRITES ? batch.flush() : Effect.void)

  const find: DocumentStoreService['find'] = (name, filter, findOptions = {}) => attempt(async () => {
    let cursor = collection(name).find(toMongoFilter(filter))
    cursor = cursor.sort(findOptions.sort && findOptions.sort.length > 0
      ? Object.fromEntries(findOptions.sort.map(([f, dir]) => [f, dir === 'desc' ? -1 : 1]))
      : { _id: 1 })
    if (findOptions.skip) cursor = cursor.skip(findOptions.skip)
    if (findOptions.limit !== undefined) cursor = cursor.limit(findOptions.limit)
    return (await cursor.toArray()) as unknown as Doc[]
  })
  const count: DocumentStoreService['count'] = (name, filter) => attempt(() => collection(name).countDocuments(toMongoFilter(filter)))
  const clear: DocumentStoreService['clear'] = (name) => attempt(async () => { await collection(name).deleteMany({}) })

  return {
    get: (name, id) => {
      const direct = attempt(async () => (await collection(name).findOne({ _id: id as never })) as unknown as Doc | null)
      return withBatch(direct, (batch) => batch.get(name, id))
    },
    put: (name, doc) => withBatch(
      attempt(async () => { await collection(name).replaceOne({ _id: doc._id as never }, doc, { upsert: true }) }),
      (batch) => Effect.suspend(() => { batch.put(name, doc); return boundMemory(batch) }),
    ),
    delete: (name, id) => withBatch(
      attempt(async () => { await collection(name).deleteOne({ _id: id as never }) }),
      (batch) => Effect.suspend(() => { batch.delete(name, id); return boundMemory(batch) }),
    ),
    create: (name, doc) => attempt(async () => {
      try {
        await collection(name).insertOne(doc as Document)
        return true
      } catch (error) {
        if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return false
        throw error
      }
    }),
    // A query inside a batch first sends the collection's pending writes, so it sees everything written before it.
    find: (name, filter, findOptions) => withBatch(find(name, filter, findOptions), (batch) => Effect.zipRight(batch.flush([name]), find(name, filter, findOptions))),
    count: (name, filter) => withBatch(count(name, filter), (batch) => Effect.zipRight(batch.flush([name]), count(name, filter))),
    clear: (name) => withBatch(clear(name), (batch) => batch.clear(name, clear(name))),
    // Writes wait in the batch's buffer and leave as bulk writes (no multi-document transactions: they need a replica
    // set). When the work fails, the writes not sent yet are dropped; those sent earlier (before a query, or to bound
    // memory) stay, so each document holds a prefix of its own writes. Replay starts over from cleared collections.
    inBatch: (work) => Effect.flatMap(FiberRef.get(currentBatch), (outer) => outer !== null && !outer.closed
      ? work // A nested batch joins the outer one.
      : Effect.flatMap(makeWriteBehind(sendWrites, readMany), (batch) => Effect.locally(currentBatch, batch)(work).pipe(
        Effect.ensuring(Effect.sync(() => { batch.closed = true })),
        Effect.tap(() => batch.flush()),
      ))),
    // The projections declare what their queries need; creating an index that exists is a no-op.
    ensureIndexes: (indexes) => attempt(async () => {
      await Promise.all(indexes.map((index) => collection(index.collection).createIndex(Object.fromEntries(index.fields))))
    }),
  } satisfies DocumentStoreService
})

const chunksOf = <A>(items: readonly A[], size: number): A[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))

export const MongoDocumentStoreLive = (options: MongoDocumentStoreOptions) => Layer.scoped(DocumentStore, mongoDocumentStore(options))
