import type Database from 'better-sqlite3'
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { Effect } from 'effect'
import type { Doc, DocumentStoreService, Filter, FindOptions } from '../../ports/document-store.js'
import { StoreUnavailable } from '../../ports/event-store.js'
import { countQuery, findQuery } from './document-queries.js'
import { DOCUMENTS_THREAD_PRAGMAS, unicodeLower } from './documents-connection.js'
import { REPLAY_THREAD_PRELUDE } from './replay-thread-prelude.js'

/**
 * Body of the writer thread, plain JavaScript run with `eval: true` (no TypeScript loader in the thread). It holds one
 * transaction on its own connection from `begin` to `end`, and runs the statements it is sent in order, so a read
 * sees every write sent before it. After a failed statement it runs nothing more and answers every request with that
 * failure; `end` then rolls back.
 */
const WRITER_SOURCE = `${REPLAY_THREAD_PRELUDE}
const db = new Database(workerData.file, { fileMustExist: true })
for (const pragma of workerData.pragmas) db.pragma(pragma)
// As the store's own connection: where a checkpointer thread copies the log into the file, this commit leaves it that work.
db.pragma('wal_autocheckpoint = ' + workerData.autocheckpoint)
db.function('unicode_lower', { deterministic: true }, ${unicodeLower.toString()})
const statements = new Map()
const statement = (sql) => {
  let found = statements.get(sql)
  if (!found) statements.set(sql, (found = db.prepare(sql)))
  return found
}
let failure = null
const answer = (id, value) => parentPort.postMessage({ id, value })
parentPort.on('message', (message) => {
  if (message.op === 'end') {
    let error = failure
    try {
      if (db.inTransaction) db.exec(message.commit && failure === null ? 'commit' : 'rollback')
    } catch (cause) { error = error ?? cause }
    db.close()
    parentPort.postMessage({ id: message.id, error: error === null ? null : String(error && error.stack || error) })
    parentPort.close()
    return
  }
  if (failure !== null) {
    if (message.id !== undefined) parentPort.postMessage({ id: message.id, error: String(failure && failure.stack || failure) })
    return
  }
  try {
    if (message.op === 'begin') { db.exec('begin immediate'); answer(message.id, null) }
    else if (message.op === 'write') {
      const run = statement(message.sql)
      for (const params of message.rows) run.run(...params)
      parentPort.postMessage({ written: message.bytes })
    } else if (message.op === 'docs') {
      // One string of ids and bodies end to end, cut by their lengths, inserted in id order.
      const { collection, text, lengths } = message
      const count = lengths.length / 2
      const bodies = new Map()
      for (let i = 0, at = 0; i < count; i++) {
        const idEnd = at + lengths[2 * i]
        const id = text.slice(at, idEnd)
        at = idEnd + lengths[2 * i + 1]
        bodies.set(id, text.slice(idEnd, at))
      }
      const run = statement(message.sql)
      if (bodies.size === count) {
        // The default sort compares strings natively, without a call per pair.
        for (const id of [...bodies.keys()].sort()) run.run(collection, id, bodies.get(id))
      } else {
        // An id sent twice: every write in the order sent, so the last one stays.
        for (let i = 0, at = 0; i < count; i++) {
          const idEnd = at + lengths[2 * i]
          const end = idEnd + lengths[2 * i + 1]
          run.run(collection, text.slice(at, idEnd), text.slice(idEnd, end))
          at = end
        }
      }
      parentPort.postMessage({ written: message.bytes })
    } else if (message.op === 'all') answer(message.id, statement(message.sql).all(...message.params))
    else if (message.op === 'get') answer(message.id, statement(message.sql).get(...message.params) ?? null)
  } catch (cause) {
    failure = cause
    if (message.id !== undefined) parentPort.postMessage({ id: message.id, error: String(cause && cause.stack || cause) })
  }
})
`

const driver = createRequire(import.meta.url).resolve('better-sqlite3')

/** Bytes of documents sent and not yet written, beyond which a write waits for the thread (bounds the queue's memory). */
const MAX_UNWRITTEN_BYTES = 64 * 1024 * 1024

const INSERT = 'insert into docs (collection, id, body) values (?, ?, ?)'
const PUT = 'insert into docs (collection, id, body) values (?, ?, ?) on conflict(collection, id) do update set body = excluded.body'
const DELETE = 'delete from docs where collection = ? and id = ?'
const CLEAR = 'delete from docs where collection = ?'
const GET = 'select body from docs where collection = ? and id = ?'

interface Reply {
  readonly id?: number
  readonly value?: unknown
  readonly error?: string | null
  readonly written?: number
}

/**
 * Runs `work` on a document store whose statements run on a thread of their own, in one transaction of the SQLite
 * file: committed when `work` succeeds, rolled back when it (or any of its statements) fails, as `inBatch`. This
 * process's thread turns documents into JSON and sends them; the inserts, the B-tree and the commit's writes happen
 * on the other core. Writes answer at once (their failure fails the commit); reads wait for the thread, which has run
 * every write sent before them. For exclusive bulk work (replay): the thread holds the file's write lock throughout,
 * and the store given to `work` offers no batches, generations nor `create`.
 */
export const inBatchOffThread = (db: Database.Database) => <A, E, R>(work: (store: DocumentStoreService) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.tryPromise({
      try: () => openWriter(db.name, db.pragma('wal_autocheckpoint', { simple: true }) as number),
      catch: (cause) => new StoreUnavailable({ cause }),
    }),
    (writer) => Effect.zipLeft(work(writer.store), writer.end(true)),
    (writer) => Effect.orDie(writer.end(false)),
  )

const openWriter = async (file: string, autocheckpoint: number) => {
  const worker = new Worker(WRITER_SOURCE, { eval: true, workerData: { driver, file, autocheckpoint, pragmas: DOCUMENTS_THREAD_PRAGMAS } })
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
  let nextId = 0
  let unwritten = 0
  let drained: (() => void) | null = null
  let gone: Error | null = null
  const failAll = (error: Error) => {
    gone = error
    for (const { reject } of waiting.values()) reject(error)
    waiting.clear()
    drained?.()
  }
  worker.on('message', (reply: Reply) => {
    if (reply.written !== undefined) {
      unwritten -= reply.written
      if (unwritten <= MAX_UNWRITTEN_BYTES && drained) { drained(); drained = null }
      return
    }
    const pending = waiting.get(reply.id!)
    if (!pending) return
    waiting.delete(reply.id!)
    if (reply.error) pending.reject(new Error(`the replay's writer thread: ${reply.error}`))
    else pending.resolve(reply.value)
  })
  worker.on('error', (error) => failAll(error))
  worker.on('exit', (code) => failAll(new Error(`the replay's writer thread exited (${code})`)))
  const request = (message: Record<string, unknown>) => new Promise<unknown>((resolve, reject) => {
    if (gone) return reject(gone)
    const id = nextId++
    waiting.set(id, { resolve, reject })
    worker.postMessage({ ...message, id })
  })
  const ask = <A>(message: Record<string, unknown>) =>
    Effect.tryPromise({ try: () => request(message) as Promise<A>, catch: (cause) => new StoreUnavailable({ cause }) })
  const write = (sql: string, rows: readonly unknown[][], bytes: number): Effect.Effect<void, StoreUnavailable> => {
    if (rows.length === 0) return Effect.void
    if (gone) return Effect.fail(new StoreUnavailable({ cause: gone }))
    worker.postMessage({ op: 'write', sql, rows, bytes })
    return sent(bytes)
  }
  /** Counts bytes sent to the thread; waits for it when too many are not written yet. */
  const sent = (bytes: number): Effect.Effect<void> => {
    unwritten += bytes
    if (unwritten <= MAX_UNWRITTEN_BYTES) return Effect.void
    return Effect.promise(() => new Promise<void>((resolve) => { drained = resolve }))
  }
  /**
   * Sends documents as one string of ids and bodies end to end and their lengths: copying one string to the thread
   * costs a fraction of copying a row (an array of strings) per document. The thread puts them in id order, so a
   * batch's inserts walk the B-tree's pages in a row.
   */
  const writeDocs = (sql: string, collection: string, docs: readonly Doc[]) => Effect.suspend(() => {
    if (docs.length === 0) return Effect.void
    if (gone) return Effect.fail(new StoreUnavailable({ cause: gone }))
    const parts = new Array<string>(docs.length * 2)
    const lengths = new Uint32Array(docs.length * 2)
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!
      const body = JSON.stringify(doc)
      parts[2 * i] = doc._id
      parts[2 * i + 1] = body
      lengths[2 * i] = doc._id.length
      lengths[2 * i + 1] = body.length
    }
    const text = parts.join('')
    worker.postMessage({ op: 'docs', sql, collection, text, lengths, bytes: text.length }, [lengths.buffer])
    return sent(text.length)
  })
  const find = (collection: string, filter: Filter, options?: FindOptions) => {
    const query = findQuery(collection, filter, options)
    return Effect.map(ask<{ body: string }[]>({ op: 'all', ...query }), (rows) => rows.map((row) => JSON.parse(row.body) as Doc))
  }
  const store: DocumentStoreService = {
    get: (collection, id) => Effect.map(ask<{ body: string } | null>({ op: 'get', sql: GET, params: [collection, id] }), (row) => (row ? JSON.parse(row.body) as Doc : null)),
    put: (collection, doc) => writeDocs(PUT, collection, [doc]),
    putMany: (collection, docs) => writeDocs(PUT, collection, docs),
    insertMany: (collection, docs) => writeDocs(INSERT, collection, docs),
    delete: (collection, id) => write(DELETE, [[collection, id]], 0),
    clear: (collection) => write(CLEAR, [[collection]], 0),
    find,
    count: (collection, filter) => Effect.map(ask<{ n: number }>({ op: 'get', ...countQuery(collection, filter) }), (row) => row.n),
    ensureIndexes: () => Effect.void,
    inBatch: (work) => work,
  }
  await request({ op: 'begin' }).catch(async (error: unknown) => {
    await worker.terminate()
    throw error
  })
  let ended = false
  return {
    store,
    /** Commits (or rolls back) and closes the thread's connection; a commit answers the first failure of the batch. */
    end: (commit: boolean) => Effect.suspend(() => {
      if (ended) return Effect.void
      ended = true
      return ask<void>({ op: 'end', commit }).pipe(Effect.ensuring(Effect.promise(() => worker.terminate())))
    }),
  }
}
