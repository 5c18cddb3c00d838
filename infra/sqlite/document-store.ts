import type Database from 'better-sqlite3'
import { Effect, Layer } from 'effect'
import { DocumentStore, type Doc, type DocumentStoreService, type Filter, type FindOptions } from '../../ports/document-store.js'
import { type StoreUnavailable, storeWorkNow } from '../../ports/event-store.js'
import { openDatabase, preparedStatements } from './database.js'
import { countQuery, findQuery, indexStatement } from './document-queries.js'
import { DOCUMENTS_CACHE_PRAGMA, unicodeLower } from './documents-connection.js'
import { inBatchOffThread } from './off-thread-batch.js'
import { scopedWithCheckpointsOffThread, type CheckpointLog } from './wal-checkpointer.js'

/** Prepared query shapes kept (an `$in` of every length is a shape of its own). */
const MAX_PREPARED = 256
/** Documents whose stored JSON is kept for reads by id (all forgotten past this many, then gathered again). */
const RECENT_BODIES = 8192

/**
 * The stored JSON of documents this connection wrote or read by id lately (null: absent), so a read by id of one
 * (the API reading the record or the counters the projector just wrote) is answered without a query; each read still
 * parses its own copy. Exact as long as everything that changes a document on this connection passes here, and it
 * is forgotten whenever something else may have changed one: another connection's commit, a rolled back transaction,
 * a cleared collection. Reads inside a transaction see its writes, as the connection's own queries do.
 */
const recentBodies = () => {
  let bodies = new Map<string, Map<string, string | null>>()
  let count = 0
  return {
    get: (collection: string, id: string) => bodies.get(collection)?.get(id),
    set: (collection: string, id: string, body: string | null) => {
      let inCollection = bodies.get(collection)
      if (inCollection === undefined) bodies.set(collection, (inCollection = new Map()))
      const size = inCollection.size
      inCollection.set(id, body)
      count += inCollection.size - size
      if (count > RECENT_BODIES) {
        bodies = new Map()
        count = 0
      }
    },
    forget: () => {
      bodies = new Map()
      count = 0
    },
  }
}

/**
 * Writes by every document store connection of this thread: one connection's write is another's sign to look for
 * other commits again within the same turn (its own writes it knows of).
 */
let writesInThread = 0

export interface SqliteDocumentStore extends DocumentStoreService {
  readonly db: Database.Database
}

export const makeSqliteDocumentStore = (file: string): SqliteDocumentStore => {
  const db = openDatabase(file)
  db.pragma(DOCUMENTS_CACHE_PRAGMA)
  db.exec('create table if not exists docs (collection text not null, id text not null, body text not null, primary key (collection, id))')
  db.function('unicode_lower', { deterministic: true }, unicodeLower)
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
  const attempt = <A>(f: () => A) => Effect.try({ try: () => storeWorkNow(f), catch: (e) => e as StoreUnavailable })
  /**
   * Generations: one count of writes per collection, plus one count for what may change any collection (a rolled
   * back transaction, whose writes were counted but undone; a commit of another connection, seen as a new
   * data_version). All only grow, so their sum changes whenever one of them does.
   */
  const writes = new Map<string, number>()
  let ownWrites = 0
  const wroteFile = () => {
    ownWrites += 1
    writesInThread += 1
  }
  const wrote = (collection: string) => {
    writes.set(collection, (writes.get(collection) ?? 0) + 1)
    wroteFile()
  }
  const dataVersion = db.prepare<[], number>('pragma data_version').pluck()
  let seenVersion = dataVersion.get()
  let everything = 0
  const known = recentBodies()
  /** What may have changed any document: a rolled back transaction, or another connection's commit. */
  const changedEverything = () => {
    everything += 1
    known.forget()
  }
  const sawOtherCommits = () => {
    const version = dataVersion.get()
    if (version !== seenVersion) {
      seenVersion = version
      changedEverything()
    }
  }
  /**
   * `data_version` is asked at most once per event-loop turn, and again after anything read from the file or written
   * by another connection of this thread: a remembered body (or generation) then reflects the file at the last look,
   * which comes after every earlier read from the file, so what this connection sees never goes back in time. Another
   * process's (or thread's) commit during a turn is seen as if it came at the turn's end, or at this connection's
   * next read from the file.
   */
  let looked = false
  let othersWritesSeen = 0
  let turnEnding = false
  const endTurn = () => {
    looked = false
    turnEnding = false
  }
  const lookForOtherCommits = () => {
    if (looked && writesInThread - ownWrites === othersWritesSeen) return
    sawOtherCommits()
    looked = true
    othersWritesSeen = writesInThread - ownWrites
    if (!turnEnding) {
      turnEnding = true
      setImmediate(endTurn)
    }
  }
  /** Something was read from the file: it may show another connection's commit, so the next answer looks again. */
  const readFromFile = <A>(answer: A): A => {
    looked = false
    return answer
  }
  const generation = (collections: readonly string[]) => {
    lookForOtherCommits()
    return collections.reduce((sum, collection) => sum + (writes.get(collection) ?? 0), everything)
  }
  let batchOpen = false
  const putBody = (collection: string, doc: Doc, statement: Database.Statement) => {
    const body = JSON.stringify(doc)
    statement.run(collection, doc._id, body)
    known.set(collection, doc._id, body)
  }
  // Queries are built from a filter's shape (its values are parameters), so the few shapes in use are prepared once.
  const statement = preparedStatements(db, MAX_PREPARED)

  const findNow = (collection: string, filter: Filter, options: FindOptions = {}) => storeWorkNow(() => {
    const query = findQuery(collection, filter, options)
    const rows = readFromFile(statement(query.sql).all(...query.params) as { body: string }[])
    return rows.map((r) => JSON.parse(r.body) as Doc)
  })
  const bodyOf = (collection: string, id: string) => {
    // A batch holds the write lock from its start (when it looked): no other connection commits meanwhile.
    if (!batchOpen) lookForOtherCommits()
    let body = known.get(collection, id)
    if (body === undefined) {
      body = readFromFile(getStmt.get(collection, id)?.body ?? null)
      known.set(collection, id, body)
    }
    return body
  }
  const getNow = (collection: string, id: string) => storeWorkNow(() => {
    const body = bodyOf(collection, id)
    return body === null ? null : (JSON.parse(body) as Doc)
  })
  /** Documents peekNow parsed, with the stored JSON each was parsed from (all forgotten past RECENT_BODIES). */
  let peeked = new Map<string, { readonly body: string; readonly doc: Doc }>()
  const peekNow = (collection: string, id: string) => storeWorkNow(() => {
    const body = bodyOf(collection, id)
    if (body === null) return null
    const key = `${collection}\u0000${id}`
    const seen = peeked.get(key)
    if (seen !== undefined && seen.body === body) return seen.doc
    if (peeked.size >= RECENT_BODIES) peeked = new Map()
    const doc = JSON.parse(body) as Doc
    peeked.set(key, { body, doc })
    return doc
  })
  const putNow = (collection: string, doc: Doc) => storeWorkNow(() => { wrote(collection); putBody(collection, doc, putStmt) })
  const deleteNow = (collection: string, id: string) => storeWorkNow(() => { wrote(collection); deleteStmt.run(collection, id); known.set(collection, id, null) })
  const begin = () => {
    beginStmt.run()
    sawOtherCommits()
    batchOpen = true
  }
  const end = (succeeded: boolean) => {
    batchOpen = false
    if (succeeded) {
      wroteFile()
      try { commitStmt.run() } catch (error) { changedEverything(); throw error }
    } else {
      changedEverything()
      rollbackStmt.run()
    }
  }
  const inBatchNow = <A>(work: () => A): A => {
    if (batchOpen) return work()
    storeWorkNow(begin)
    let answer: A
    try {
      answer = work()
    } catch (error) {
      storeWorkNow(() => end(false))
      throw error
    }
    storeWorkNow(() => end(true))
    return answer
  }

  return {
    db,
    get: (collection, id) => attempt(() => getNow(collection, id)),
    put: (collection, doc) => attempt(() => putNow(collection, doc)),
    putMany: (collection, docs) => attempt(() => { wrote(collection); for (const doc of docs) putBody(collection, doc, putStmt) }),
    // Rebuilds insert their many documents once: none is kept (what was kept of the collection could only be absent).
    insertMany: (collection, docs) => attempt(() => { wrote(collection); known.forget(); for (const doc of docs) insertStmt.run(collection, doc._id, JSON.stringify(doc)) }),
    delete: (collection, id) => attempt(() => deleteNow(collection, id)),
    find: (collection, filter, options) => attempt(() => findNow(collection, filter, options)),
    count: (collection, filter) => attempt(() => {
      const query = countQuery(collection, filter)
      return readFromFile((statement(query.sql).get(...query.params) as { n: number }).n)
    }),
    clear: (collection) => attempt(() => { wrote(collection); clearStmt.run(collection); known.forget() }),
    // One table holds every collection, in primary-key order: reads by id need nothing more, and listings are
    // small enough per organization for an embedded deployment; only the indexes declared for it are kept.
    ensureIndexes: (indexes) => attempt(() => { for (const index of indexes) if (index.embedded) db.exec(indexStatement(index)) }),
    atomicBatches: true,
    inBatch: (work) => Effect.acquireUseRelease(attempt(begin), () => work, (_, exit) => attempt(() => end(exit._tag === 'Success')).pipe(Effect.orDie)),
    getNow,
    peekNow,
    findNow,
    putNow,
    deleteNow,
    inBatchNow,
    generation,
    ...(db.memory ? {} : { inBatchOffThread: inBatchOffThread(db) }),
  }
}

/**
 * The embedded read-model store, its log checkpointed off the thread: its file is opened when the layer is built and
 * closed when it is released.
 */
export const SqliteDocumentStoreLive = (file: string, log: CheckpointLog) => Layer.scoped(DocumentStore, scopedWithCheckpointsOffThread(() => makeSqliteDocumentStore(file), log))
