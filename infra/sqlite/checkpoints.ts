import type Database from 'better-sqlite3'
import { Effect } from 'effect'
import { StoreUnavailable } from '../../ports/event-store.js'
import { makeCatchUpLog, type CatchUpOptions, type CheckpointStore } from '../log/catch-up.js'
import type { SqliteEventStore } from './event-store.js'

/** Checkpoints in the event store's own SQLite file. */
export const sqliteCheckpoints = (db: Database.Database): CheckpointStore => {
  const get = db.prepare<[string], { position: number }>('select position from checkpoints where name = ?')
  const set = db.prepare('insert into checkpoints (name, position) values (?, ?) on conflict(name) do update set position = excluded.position')
  const attempt = <A>(f: () => A) => Effect.try({ try: f, catch: (cause) => new StoreUnavailable({ cause }) })
  return {
    load: (name) => attempt(() => get.get(name)?.position ?? 0),
    save: (name, position) => attempt(() => { if (db.open) set.run(name, position) }),
  }
}

/** The embedded fan-out: catch-up over the SQLite log, checkpoints in the same file, woken by local appends. */
export const sqliteCatchUpLog = (store: SqliteEventStore, options: Omit<CatchUpOptions, 'appended'> = {}) =>
  makeCatchUpLog(store, sqliteCheckpoints(store.db), { ...options, appended: store.appended })
