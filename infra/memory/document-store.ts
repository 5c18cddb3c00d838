import { Effect, Layer } from 'effect'
import { DocumentStore, type Doc, type DocumentStoreService, type Filter, type FilterValue, type FindOptions } from '../../ports/document-store.js'
import { type StoreUnavailable, storeWorkNow } from '../../ports/event-store.js'

const SAFE_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/

/** A field's value; a dotted path descends through objects only (an array is not indexed by a path segment). */
const valueAt = (doc: Doc, field: string): unknown => {
  if (!SAFE_PATH.test(field)) throw new Error(`unsafe field path: ${field}`)
  let value: unknown = doc
  for (const part of field.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
    value = (value as Record<string, unknown>)[part]
  }
  return value
}

/**
 * A value as the SQLite adapter compares it: missing is null, booleans are 1 and 0, objects and arrays are their
 * JSON text. Keeping the same scalar rules keeps both adapters answering the same documents.
 */
type Scalar = null | number | string
const scalar = (v: unknown): Scalar => {
  if (v === undefined || v === null) return null
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'number' || typeof v === 'string') return v
  return JSON.stringify(v)
}

/** SQLite's order across types: null, then numbers, then text (compared code unit by code unit). */
const rank = (v: Scalar) => (v === null ? 0 : typeof v === 'number' ? 1 : 2)
const compare = (a: Scalar, b: Scalar): number => {
  const byRank = rank(a) - rank(b)
  if (byRank !== 0 || a === null || b === null) return byRank
  return a < b ? -1 : a > b ? 1 : 0
}

const lower = (s: string) => s.toLocaleLowerCase('und')

/** Equality and `$in` match the value itself or, when the field is an array, any of its elements (as in MongoDB). */
const matchesAny = (value: unknown, accept: (candidate: Scalar) => boolean) =>
  accept(scalar(value)) || (Array.isArray(value) && value.some((element) => accept(scalar(element))))

const matches = (doc: Doc, field: string, condition: FilterValue): boolean => {
  const value = valueAt(doc, field)
  if (condition === null) return value === undefined || value === null
  if (typeof condition !== 'object') {
    const wanted = scalar(condition)
    return matchesAny(value, (candidate) => candidate === wanted)
  }
  if ('$in' in condition) {
    const wanted = new Set(condition.$in.map(scalar))
    return matchesAny(value, (candidate) => candidate !== null && wanted.has(candidate))
  }
  if ('$nin' in condition) {
    const unwanted = new Set(condition.$nin.map(scalar))
    return !matchesAny(value, (candidate) => candidate !== null && unwanted.has(candidate))
  }
  if ('$contains' in condition) {
    const text = scalar(value)
    return text !== null && lower(String(text)).includes(lower(condition.$contains))
  }
  const actual = scalar(value)
  if (actual === null) return false
  const bounds: [bound: string | number | undefined, holds: (c: number) => boolean][] = [
    [condition.$gt, (c) => c > 0], [condition.$gte, (c) => c >= 0], [condition.$lt, (c) => c < 0], [condition.$lte, (c) => c <= 0],
  ]
  return bounds.every(([bound, holds]) => bound === undefined || holds(compare(actual, bound)))
}

/**
 * The document store in one process's memory, for fast tests: the same filter, sort and paging semantics as the
 * SQLite adapter (which the shared contract suite pins down). Documents are kept as JSON text, so a caller never
 * shares an object with the store.
 */
export const makeMemoryDocumentStore = (): DocumentStoreService => {
  const collections = new Map<string, Map<string, string>>()
  const collection = (name: string) => {
    let docs = collections.get(name)
    if (!docs) collections.set(name, (docs = new Map()))
    return docs
  }
  const attempt = <A>(f: () => A) => Effect.try({ try: () => storeWorkNow(f), catch: (e) => e as StoreUnavailable })
  const filtered = (name: string, filter: Filter) => {
    const conditions = Object.entries(filter)
    return [...collection(name).values()]
      .map((json) => JSON.parse(json) as Doc)
      .filter((doc) => conditions.every(([field, condition]) => matches(doc, field, condition)))
  }

  const findNow = (name: string, filter: Filter, options: FindOptions = {}) => storeWorkNow(() => {
    const sort = options.sort ?? []
    const byId = (a: Doc, b: Doc) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0)
    const ordered = filtered(name, filter).sort((a, b) => {
      for (const [field, dir] of sort) {
        const c = compare(scalar(valueAt(a, field)), scalar(valueAt(b, field)))
        if (c !== 0) return dir === 'desc' ? -c : c
      }
      return byId(a, b)
    })
    const skip = Math.max(0, Math.floor(options.skip ?? 0))
    const end = options.limit === undefined ? undefined : skip + Math.max(0, Math.floor(options.limit))
    return ordered.slice(skip, end)
  })
  const getNow = (name: string, id: string) => {
    const json = collection(name).get(id)
    return json === undefined ? null : (JSON.parse(json) as Doc)
  }
  const putNow = (name: string, doc: Doc) => { collection(name).set(doc._id, JSON.stringify(doc)) }
  const deleteNow = (name: string, id: string) => { collection(name).delete(id) }

  return {
    get: (name, id) => Effect.sync(() => getNow(name, id)),
    put: (name, doc) => attempt(() => putNow(name, doc)),
    delete: (name, id) => Effect.sync(() => deleteNow(name, id)),
    find: (name, filter, options) => attempt(() => findNow(name, filter, options)),
    count: (name, filter) => attempt(() => filtered(name, filter).length),
    clear: (name) => attempt(() => { collections.delete(name) }),
    // Scans are fast enough in memory.
    ensureIndexes: () => Effect.void,
    inBatch: (work) => work,
    getNow,
    findNow,
    putNow: (name, doc) => storeWorkNow(() => putNow(name, doc)),
    deleteNow,
    // Like inBatch: no grouping, so a failed batch keeps the writes made before it failed.
    inBatchNow: (work) => work(),
  }
}

export const MemoryDocumentStoreLayer = Layer.sync(DocumentStore, makeMemoryDocumentStore)
