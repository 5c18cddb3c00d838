import { Effect, Layer, type Scope } from 'effect'
import { MongoClient, type Filter as MongoFilter, type Document } from 'mongodb'
import { DocumentStore, type Doc, type DocumentStoreService, type Filter, type FilterValue } from '../../ports/document-store.js'
import { StoreUnavailable } from '../../ports/event-store.js'

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

const toMongoCondition = (value: FilterValue): unknown => {
  if (value === null || typeof value !== 'object') return value
  if ('$in' in value) return { $in: value.$in }
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

/** Connects; the client is closed when the scope closes. Indexes come from the projections (ensureIndexes). */
export const mongoDocumentStore = (options: MongoDocumentStoreOptions): Effect.Effect<DocumentStoreService, StoreUnavailable, Scope.Scope> => Effect.gen(function* () {
  const client = yield* Effect.acquireRelease(
    attempt(() => new MongoClient(options.url, { serverSelectionTimeoutMS: 10_000 }).connect()),
    (connected) => Effect.promise(() => connected.close()),
  )
  const db = client.db(options.database ?? 'scrapeworks')
  const prefix = options.prefix ?? 'rm_'
  const collection = (name: string) => db.collection<Document>(`${prefix}${name}`)

  return {
    get: (name, id) => attempt(async () => (await collection(name).findOne({ _id: id as never })) as unknown as Doc | null),
    put: (name, doc) => attempt(async () => { await collection(name).replaceOne({ _id: doc._id as never }, doc, { upsert: true }) }),
    delete: (name, id) => attempt(async () => { await collection(name).deleteOne({ _id: id as never }) }),
    find: (name, filter, findOptions = {}) => attempt(async () => {
      let cursor = collection(name).find(toMongoFilter(filter))
      cursor = cursor.sort(findOptions.sort && findOptions.sort.length > 0
        ? Object.fromEntries(findOptions.sort.map(([f, dir]) => [f, dir === 'desc' ? -1 : 1]))
        : { _id: 1 })
      if (findOptions.skip) cursor = cursor.skip(findOptions.skip)
      if (findOptions.limit !== undefined) cursor = cursor.limit(findOptions.limit)
      return (await cursor.toArray()) as unknown as Doc[]
    }),
    count: (name, filter) => attempt(() => collection(name).countDocuments(toMongoFilter(filter))),
    clear: (name) => attempt(async () => { await collection(name).deleteMany({}) }),
    // Multi-document transactions need a replica set; replay's writes are idempotent by position anyway.
    inBatch: (work) => work,
    // The projections declare what their queries need; creating an index that exists is a no-op.
    ensureIndexes: (indexes) => attempt(async () => {
      await Promise.all(indexes.map((index) => collection(index.collection).createIndex(Object.fromEntries(index.fields))))
    }),
  } satisfies DocumentStoreService
})

export const MongoDocumentStoreLive = (options: MongoDocumentStoreOptions) => Layer.scoped(DocumentStore, mongoDocumentStore(options))

