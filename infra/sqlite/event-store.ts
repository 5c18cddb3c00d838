import type Database from 'better-sqlite3'
import { EventEmitter } from 'node:events'
import { Effect, type Scope } from 'effect'
import {
  StoreUnavailable, WrongExpectedRevision,
  type AppendResult, type EventStoreService, type ExpectedRevision, type NewEvent, type RecordedEvent,
} from '../../ports/event-store.js'
import { openDatabase } from './database.js'

const SCHEMA = `
create table if not exists events (
  position integer primary key autoincrement,
  event_id text not null unique,
  stream text not null,
  revision integer not null,
  type text not null,
  org_id text not null,
  occurred_at text not null,
  data text not null,
  metadata text not null,
  unique (stream, revision)
);
create table if not exists checkpoints (name text primary key, position integer not null);
`

interface Row {
  position: number; event_id: string; stream: string; revision: number; type: string
  org_id: string; occurred_at: string; data: string; metadata: string
}

const toRecorded = (row: Row): RecordedEvent => ({
  ...row,
  data: JSON.parse(row.data),
  metadata: JSON.parse(row.metadata),
})

/** The SQLite event store plus an in-process signal raised after every append (for low-latency subscriptions). */
export interface SqliteEventStore extends EventStoreService {
  readonly db: Database.Database
  readonly appended: EventEmitter
}

export const makeSqliteEventStore = (file: string): SqliteEventStore => {
  const db = openDatabase(file)
  db.exec(SCHEMA)
  const appended = new EventEmitter()
  appended.setMaxListeners(0)
  const streamHead = db.prepare<[string], { revision: number; position: number }>('select revision, position from events where stream = ? order by revision desc limit 1')
  const byEventId = db.prepare<[string], { stream: string }>('select stream from events where event_id = ?')
  const insert = db.prepare('insert into events (event_id, stream, revision, type, org_id, occurred_at, data, metadata) values (?, ?, ?, ?, ?, ?, ?, ?)')
  const readStreamStmt = db.prepare<[string], Row>('select * from events where stream = ? order by revision')
  const readAllStmt = db.prepare<[number, number], Row>('select * from events where position > ? order by position limit ?')

  const appendTx = db.transaction((stream: string, events: readonly NewEvent[], expected: ExpectedRevision): AppendResult => {
    const head = streamHead.get(stream)
    const duplicate = events.length > 0 ? byEventId.get(events[0]!.event_id) : undefined
    if (duplicate && duplicate.stream === stream && head) return { revision: head.revision, position: head.position }
    const actual = head ? head.revision : 'no_stream'
    const matches = expected === 'any' || (expected === 'no_stream' ? !head : head?.revision === expected)
    if (!matches) throw new WrongExpectedRevision({ stream, expected, actual })
    let revision = head ? head.revision : -1
    let position = head?.position ?? 0
    for (const e of events) {
      revision += 1
      position = Number(insert.run(e.event_id, stream, revision, e.type, e.org_id, e.occurred_at, JSON.stringify(e.data), JSON.stringify(e.metadata)).lastInsertRowid)
    }
    return { revision, position }
  })

  return {
    db,
    appended,
    append: (stream, events, expected) =>
      Effect.try({
        try: () => appendTx.immediate(stream, events, expected),
        catch: (e) => (e instanceof WrongExpectedRevision ? e : new StoreUnavailable({ cause: e })),
      }).pipe(Effect.tap(() => Effect.sync(() => appended.emit('append')))),
    readStream: (stream) => Effect.try({ try: () => readStreamStmt.all(stream).map(toRecorded), catch: (cause) => new StoreUnavailable({ cause }) }),
    readAll: (after, limit) => Effect.try({ try: () => readAllStmt.all(after, limit).map(toRecorded), catch: (cause) => new StoreUnavailable({ cause }) }),
  }
}

/** The store for the lifetime of a scope: its file is closed when the scope closes. */
export const sqliteEventStore = (file: string): Effect.Effect<SqliteEventStore, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.sync(() => makeSqliteEventStore(file)), (store) => Effect.sync(() => { if (store.db.open) store.db.close() }))
