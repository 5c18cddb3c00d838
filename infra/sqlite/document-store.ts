import type Database from 'better-sqlite3'
import { Effect, Layer } from 'effect'
import { DocumentStore, type Doc, type DocumentStoreService, type Filter, type FindOptions } from '../../ports/document-store.js'
import { StoreUnavailable } from '../../ports/event-store.js'
import { openDatabase } from './database.js'
import { scopedWithCheckpointsOffThread } from './wal-checkpointer.js'

const SAFE_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/

const jsonPath = (field: string): string => {
  if (!SAFE_PATH.test(field)) throw new Error(`unsafe field path: ${field}`)
  return field === '_id' ? 'id' : `json_extract(body, '$.${field}')`
}

const sqlValue = (v: unknown) => (typeof v === 'boolean' ? (v ? 1 : 0) : v)

/** Translates a Filter into SQL; equality on an array field matches any element (as in MongoDB). */
const whereClause = (filter: Filter): { sql: string; params: unknown[] } => {
  const parts: string[] = []
  const params: unknown[] = []
  for (const [field, value] of Object.entries(filter)) {
    const expr = jsonPath(field)
    // As in MongoDB: the value itself matches, or, when the field is an array, any of its elements.
    const matches = (op: string, values: unknown[]) => {
      if (field === '_id') { parts.push(`id ${op}`); params.push(...values); return }
      parts.push(`(${expr} ${op} or (json_type(body, '$.${field}') = 'array' and exists (select 1 from json_each(body, '$.${field}') where json_each.value ${op})))`)
      params.push(...values, ...values)
    }
    if (value === null) parts.push(`${expr} is null`)
    else if (typeof value !== 'object') matches('= ?', [sqlValue(value)])
    else if ('$in' in value) {
      if (value.$in.length === 0) { parts.push('0'); continue }
      matches(`in (${value.$in.map(() => '?').join(', ')})`, value.$in.map(sqlValue))
    } else if ('$contains' in value) {
      parts.push(`instr(unicode_lower(${expr}), unicode_lower(?)) > 0`)
      params.push(value.$contains)
    } else {
      for (const [op, sqlOp] of [['$gt', '>'], ['$gte', '>='], ['$lt', '<'], ['$lte', '<=']] as const) {
        if (value[op] !== undefined) { parts.push(`${expr} ${sqlOp} ?`); params.push(value[op]) }
      }
    }
  }
  return { sql: parts.length > 0 ? `where collection = ? and ${parts.join(' and ')}` : 'where collection = ?', params }
}

/** Prepared query shapes kept (an `$in` of every length is a shape of its own). */
const MAX_PREPARED = 256

export interface SqliteDocumentStore extends DocumentStoreService {
  readonly db: Database.Database
}

export const makeSqliteDocumentStore = (file: string): SqliteDocumentStore => {
  const db = openDatabase(file)
  // 64 MB of page cache (the default is 2 MB): a replay writes every read model in one transaction, and pages that
  // do not fit are spilled and read back.
  db.pragma('cache_size = -65536')
  db.exec('create table if not exists docs (collection text not null, id text not null, body text not null, primary key (collection, id))')
  // SQLite's lower() folds ASCII only; substring search must be case-insensitive for every script.
  db.function('unicode_lower', { deterministic: true }, (v: unknown) => (typeof v === 'string' ? v.toLocaleLowerCase('und') : v))
  const getStmt = db.prepare<[string, string], { body: string }>('select body from docs where collection = ? and id = ?')
  const putStmt = db.prepare('insert into docs (collection, id, body) values (?, ?, ?) on conflict(collection, id) do update set body = excluded.body')
  const insertStmt = db.prepare('insert into docs (collection, id, body) values (?, ?, ?)')
  const deleteStmt = db.prepare('delete from docs where collection = ? and id = ?')
  const clearStmt = db.prepare('delete from docs where collection = ?')
  // Immediate: the batch holds the write lock from its start, so what it reads first (and the generation it checks) is
  // not changed by another connection before it writes.
  const beginStmt = db.prepare('begin immediate')
  const commitStmt = db.prepare('commit')
  const rollbackStmt = db.prepare('rollback')
  const attempt = <A>(f: () => A) => Effect.try({ try: f, catch: (cause) => new StoreUnavailable({ cause }) })
  /**
   * Generations: one count of writes per collection, plus one count for what may change any collection (a rolled
   * back transaction, whose writes were counted but undone; a commit of another connection, seen as a new
   * data_version). All only grow, so their sum changes whenever one of them does.
   */
  const writes = new Map<string, number>()
  const wrote = (collection: string) => { writes.set(collection, (writes.get(collection) ?? 0) + 1) }
  const dataVersion = db.prepare<[], number>('pragma data_version').pluck()
  let seenVersion = dataVersion.get()
  let everything = 0
  const generation = (collections: readonly string[]) => {
    const version = dataVersion.get()
    if (version !== seenVersion) {
      seenVersion = version
      everything += 1
    }
    return collections.reduce((sum, collection) => sum + (writes.get(collection) ?? 0), everything)
  }
  // Queries are built from a filter's shape (its values are parameters), so the few shapes in use are prepared once.
  const prepared = new Map<string, Database.Statement>()
  const statement = (sql: string) => {
    let found = prepared.get(sql)
    if (!found) {
      if (prepared.size >= MAX_PREPARED) prepared.clear()
      prepared.set(sql, (found = db.prepare(sql)))
    }
    return found
  }

  const find = (collection: string, filter: Filter, options: FindOptions = {}) => attempt(() => {
    const where = whereClause(filter)
    const order = options.sort && options.sort.length > 0
      ? `order by ${options.sort.map(([f, dir]) => `${jsonPath(f)} ${dir === 'desc' ? 'desc' : 'asc'}`).join(', ')}`
      : 'order by id'
    const limit = options.limit === undefined ? -1 : Math.max(0, Math.floor(options.limit))
    const skip = Math.max(0, Math.floor(options.skip ?? 0))
    const rows = statement(`select body from docs ${where.sql} ${order} limit ? offset ?`)
      .all(collection, ...where.params, limit, skip) as { body: string }[]
    return rows.map((r) => JSON.parse(r.body) as Doc)
  })

  return {
    db,
    get: (collection, id) => attempt(() => {
      const row = getStmt.get(collection, id)
      return row ? (JSON.parse(row.body) as Doc) : null
    }),
    put: (collection, doc) => attempt(() => { wrote(collection); putStmt.run(collection, doc._id, JSON.stringify(doc)) }),
    putMany: (collection, docs) => attempt(() => { wrote(collection); for (const doc of docs) putStmt.run(collection, doc._id, JSON.stringify(doc)) }),
    insertMany: (collection, docs) => attempt(() => { wrote(collection); for (const doc of docs) insertStmt.run(collection, doc._id, JSON.stringify(doc)) }),
    delete: (collection, id) => attempt(() => { wrote(collection); deleteStmt.run(collection, id) }),
    find,
    count: (collection, filter) => attempt(() => {
      const where = whereClause(filter)
      return (statement(`select count(*) as n from docs ${where.sql}`).get(collection, ...where.params) as { n: number }).n
    }),
    clear: (collection) => attempt(() => { wrote(collection); clearStmt.run(collection) }),
    // One table holds every collection, in primary-key order: reads by id need nothing more, and listings are
    // small enough per organization for an embedded deployment.
    ensureIndexes: () => Effect.void,
    atomicBatches: true,
    inBatch: (work) => Effect.acquireUseRelease(
      attempt(() => beginStmt.run()),
      () => work,
      (_, exit) => attempt(() => {
        if (exit._tag === 'Success') {
          try { commitStmt.run() } catch (error) { everything += 1; throw error }
        } else {
          everything += 1
          rollbackStmt.run()
        }
      }).pipe(Effect.orDie),
    ),
    generation,
  }
}

/**
 * The embedded read-model store, its log checkpointed off the thread: its file is opened when the layer is built and
 * closed when it is released.
 */
export const SqliteDocumentStoreLive = (file: string) => Layer.scoped(DocumentStore, scopedWithCheckpointsOffThread(() => makeSqliteDocumentStore(file)))
