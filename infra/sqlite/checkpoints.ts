import type Database from 'better-sqlite3'
import { Effect } from 'effect'
import { StoreUnavailable } from '../../ports/event-store.js'
import { makeCatchUpLog, type CatchUpOptions, type CheckpointStore } from '../log/catch-up.js'
import type { SqliteEventStore } from './event-store.js'

/** How long saves gather before they are written together. */
const BATCH_MS = 10

/**
 * Checkpoints in the event store's own SQLite file. The process's subscribers (every projection and processor) each
 * move theirs after every event, so saves made within a few milliseconds are written in one transaction rather than
 * one each; a save completes once its batch is written. A checkpoint only bounds redelivery after a crash (handlers
 * are idempotent), so the short delay costs no guarantee.
 */
export const sqliteCheckpoints = (db: Database.Database): CheckpointStore => {
  const get = db.prepare<[string], { position: number }>('select position from checkpoints where name = ?')
  const set = db.prepare('insert into checkpoints (name, position) values (?, ?) on conflict(name) do update set position = excluded.position')
  const writeAll = db.transaction((positions: ReadonlyMap<string, number>) => { for (const [name, position] of positions) set.run(name, position) })
  let batch: { readonly positions: Map<string, number>; readonly written: Promise<void> } | null = null
  const nextBatch = () => {
    const positions = new Map<string, number>()
    const written = new Promise<void>((resolve) => setTimeout(resolve, BATCH_MS)).then(() => {
      batch = null
      if (db.open) writeAll(positions)
    })
    return { positions, written }
  }
  const saveAll = (positions: ReadonlyMap<string, number>) => Effect.tryPromise({
    try: () => {
      batch ??= nextBatch()
      for (const [name, position] of positions) batch.positions.set(name, Math.max(position, batch.positions.get(name) ?? 0))
      return batch.written
    },
    catch: (cause) => new StoreUnavailable({ cause }),
  })
  return {
    load: (name) => Effect.try({ try: () => get.get(name)?.position ?? 0, catch: (cause) => new StoreUnavailable({ cause }) }),
    save: (name, position) => saveAll(new Map([[name, position]])),
    saveAll,
  }
}

/** The embedded fan-out: catch-up over the SQLite log, checkpoints in the same file, woken by local appends. */
export const sqliteCatchUpLog = (store: SqliteEventStore, options: Omit<CatchUpOptions, 'appended'> = {}) =>
  makeCatchUpLog(store, sqliteCheckpoints(store.db), { ...options, appended: store.appended, readAllNow: store.readAllNow })
