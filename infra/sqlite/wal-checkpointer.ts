import type Database from 'better-sqlite3'
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { Effect, type Scope } from 'effect'

/** How often the worker copies the write-ahead log's new pages into the database file. */
const CHECKPOINT_EVERY_MS = 200
/** SQLite's own default, restored on the process's connection when the worker fails. */
const AUTOCHECKPOINT_PAGES = 1000

/** Where a checkpointer that stopped (and so a connection back to checkpointing itself) is told. */
export type CheckpointLog = (message: string, detail?: unknown) => void

/**
 * Body of the checkpointer thread, plain JavaScript run with `eval: true` (no TypeScript loader in the thread). A
 * PASSIVE checkpoint never waits for nor blocks the process's writer or readers.
 */
const CHECKPOINTER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.file, { fileMustExist: true })
const checkpoint = () => db.pragma('wal_checkpoint(PASSIVE)')
const timer = setInterval(checkpoint, workerData.everyMs)
parentPort.on('message', () => {
  clearInterval(timer)
  checkpoint()
  db.close()
  parentPort.close()
})
`

const driver = createRequire(import.meta.url).resolve('better-sqlite3')

/**
 * Moves the checkpoints of a SQLite file's write-ahead log off the process's thread. SQLite runs one on the committing
 * connection every 1000 pages: it copies the pages into the database file and syncs both files, which blocks the
 * thread, averaged over commits, for several times what the commit itself takes (docs/performance.md). Here the
 * connection checkpoints no more, and a worker thread with a connection of its own checkpoints every 200 ms instead.
 * Commits stay durable (they are in the log; a checkpoint only moves them), and readers are unaffected. If the
 * worker fails, the connection checkpoints itself again. Answers a stop that checkpoints one last time and closes the
 * worker's connection (before the process's connection is closed).
 */
export const checkpointOffThread = (db: Database.Database, log: CheckpointLog) => {
  if (db.memory) return async () => {}
  db.pragma('wal_autocheckpoint = 0')
  const worker = new Worker(CHECKPOINTER_SOURCE, { eval: true, workerData: { driver, file: db.name, everyMs: CHECKPOINT_EVERY_MS } })
  worker.unref()
  let stopping = false
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
  const fallBack = (detail: unknown) => {
    if (stopping || !db.open) return
    log(`the checkpointer of ${db.name} stopped; its connection checkpoints itself again`, detail)
    db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`)
  }
  let failure: unknown = null
  worker.on('error', (error) => { failure = error })
  worker.on('exit', (code) => fallBack(failure ?? { code }))
  return async () => {
    if (stopping) return exited
    stopping = true
    worker.ref() // the process waits for the last checkpoint
    worker.postMessage('stop')
    return exited
  }
}

/** A SQLite store for the lifetime of a scope, its log checkpointed off the thread: its file is closed when the scope closes. */
export const scopedWithCheckpointsOffThread = <S extends { readonly db: Database.Database }>(open: () => S, log: CheckpointLog): Effect.Effect<S, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const store = open()
      return { store, stopCheckpoints: checkpointOffThread(store.db, log) }
    }),
    ({ store, stopCheckpoints }) => Effect.promise(async () => {
      await stopCheckpoints()
      if (store.db.open) store.db.close()
    }),
  ).pipe(Effect.map(({ store }) => store))
