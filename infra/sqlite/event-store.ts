import type Database from 'better-sqlite3'
import { EventEmitter } from 'node:events'
import { Effect, type Scope } from 'effect'
import {
  StoreUnavailable, WrongExpectedRevision, storeWorkNow,
  type AppendResult, type EventStoreService, type ExpectedRevision, type NewEvent, type RecordedEvent,
} from '../../ports/event-store.js'
import { openDatabase } from './database.js'
import { deepFreeze, makeLogTail } from './log-tail.js'
import { readLogOffThread } from './log-reader-thread.js'
import { makeStreamCache } from './stream-cache.js'
import { scopedWithCheckpointsOffThread, type CheckpointLog } from './wal-checkpointer.js'

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

// One literal of one shape (a spread of the row cost a copy per event read: a fifth of replay's reading).
const toRecorded = (row: Row): RecordedEvent => ({
  position: row.position, event_id: row.event_id, stream: row.stream, revision: row.revision, type: row.type,
  org_id: row.org_id, occurred_at: row.occurred_at, data: JSON.parse(row.data), metadata: JSON.parse(row.metadata),
})

/** An append's result plus what the log tail needs: the log's last position before it and the events it wrote. */
type Appended = AppendResult & { readonly previousPosition: number; readonly recorded: readonly RecordedEvent[] }

/**
 * Work done inside each append's write transaction with the events it recorded (the audit chain's links), and once at
 * opening with none; what it throws undoes the append.
 */
export type WithinAppend = (db: Database.Database) => (recorded: readonly RecordedEvent[]) => void

/** Events the log tail keeps in memory for the process's subscribers. */
const TAIL_CAPACITY = 4096
/** Streams whose events stay in memory for commands that read them again (stream-cache.ts). */
const STREAM_CACHE_CAPACITY = 4096

/** The SQLite event store plus an in-process signal raised after every append (for low-latency subscriptions). */
export interface SqliteEventStore extends EventStoreService {
  readonly db: Database.Database
  readonly appended: EventEmitter
  /** readAll answered at once, without an effect run (the process's own log readers); throws what readAll fails with. */
  readonly readAllNow: (after: number, limit: number) => readonly RecordedEvent[]
  readonly appendNow: NonNullable<EventStoreService['appendNow']>
  readonly readStreamNow: NonNullable<EventStoreService['readStreamNow']>
}

export const makeSqliteEventStore = (file: string, withinAppend?: WithinAppend): SqliteEventStore => {
  const db = openDatabase(file)
  db.exec(SCHEMA)
  const inAppend = withinAppend?.(db)
  if (inAppend) db.transaction(() => inAppend([])).immediate()
  const appended = new EventEmitter()
  appended.setMaxListeners(0)
  const streamHead = db.prepare<[string], { revision: number; position: number }>('select revision, position from events where stream = ? order by revision desc limit 1')
  const byEventId = db.prepare<[string], { stream: string }>('select stream from events where event_id = ?')
  const insert = db.prepare('insert into events (event_id, stream, revision, type, org_id, occurred_at, data, metadata) values (?, ?, ?, ?, ?, ?, ?, ?)')
  const readStreamStmt = db.prepare<[string], Row>('select * from events where stream = ? order by revision')
  const readAllStmt = db.prepare<[number, number], Row>('select * from events where position > ? order by position limit ?')
  const tail = makeLogTail(TAIL_CAPACITY)
  const streams = makeStreamCache(STREAM_CACHE_CAPACITY)
  const readStream = (stream: string): readonly RecordedEvent[] => {
    const head = streamHead.get(stream)
    if (!head) return []
    return streams.read(stream, head.revision) ?? streams.readFromFile(stream, readStreamStmt.all(stream).map(toRecorded))
  }
  const readFile = (after: number, limit: number) => readAllStmt.all(after, limit).map(toRecorded)
  /**
   * Whether the file may hold events after the log tail's end. SQLite's data_version changes when another connection
   * commits; this connection's own appends reach the tail as they commit, unless the tail could not take one. So
   * while neither happened since a read reached the file's end, the many caught-up subscribers that look for more
   * after every append skip the query.
   */
  const dataVersion = db.prepare<[], number>('pragma data_version').pluck()
  let versionAtEnd = -1
  let appendNotInTail = false
  const readAfterTail = (end: number, limit: number): readonly RecordedEvent[] => {
    if (!appendNotInTail && dataVersion.get() === versionAtEnd) return []
    const version = dataVersion.get()!
    const read = readFile(end, limit)
    if (read.length < limit) {
      versionAtEnd = version
      appendNotInTail = false
    }
    return read
  }
  const readAll = (after: number, limit: number): readonly RecordedEvent[] => {
    const cached = tail.read(after, limit, readAfterTail)
    if (cached !== null) return cached
    const read = readFile(after, limit)
    // A read that reached the end of the log is a complete run to start the cache at.
    if (read.length < limit) tail.startAt(after, read)
    return read
  }

  const appendTx = db.transaction((stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Appended => {
    const head = streamHead.get(stream)
    /**
     * An append whose first event is recorded in the stream already (a retried reaction, whose event ids derive from
     * its cause) appends nothing and succeeds. Looked up only when the append cannot go through as it is, since its
     * first event then conflicts with the stream's head or fails the unique event id.
     */
    const alreadyAppended = (): Appended | null => {
      const duplicate = events.length > 0 ? byEventId.get(events[0]!.event_id) : undefined
      return duplicate && duplicate.stream === stream && head ? { revision: head.revision, position: head.position, previousPosition: head.position, recorded: [] } : null
    }
    const actual = head ? head.revision : 'no_stream'
    const matches = expected === 'any' || (expected === 'no_stream' ? !head : head?.revision === expected)
    if (!matches) {
      const noop = alreadyAppended()
      if (noop !== null) return noop
      throw new WrongExpectedRevision({ stream, expected, actual })
    }
    let revision = head ? head.revision : -1
    let position = head?.position ?? 0
    const rows: Row[] = []
    for (const e of events) {
      revision += 1
      const row = { event_id: e.event_id, stream, revision, type: e.type, org_id: e.org_id, occurred_at: e.occurred_at, data: JSON.stringify(e.data), metadata: JSON.stringify(e.metadata) }
      try {
        position = Number(insert.run(row.event_id, stream, revision, row.type, row.org_id, row.occurred_at, row.data, row.metadata).lastInsertRowid)
      } catch (error) {
        // Only the failed statement is undone: the first event's own duplicate leaves the transaction as it began.
        const noop = rows.length === 0 ? alreadyAppended() : null
        if (noop !== null) return noop
        throw error
      }
      rows.push({ position, ...row })
    }
    // Positions are consecutive (autoincrement, whose counter a rollback restores; events are never deleted), so the
    // log's last position before this append is the one before its first event.
    const previousPosition = rows.length > 0 ? rows[0]!.position - 1 : position
    const recorded = rows.map((row) => deepFreeze(toRecorded(row)))
    inAppend?.(recorded)
    return { revision, position, previousPosition, recorded }
  })

  const appendNow = (stream: string, events: readonly NewEvent[], expected: ExpectedRevision): AppendResult => {
    const result = storeWorkNow(() => appendTx.immediate(stream, events, expected))
    // Committed: the process's subscribers and later reads of the stream get these events from memory, as the file would answer them.
    const { recorded } = result
    if (recorded.length > 0) {
      if (!tail.appended(recorded[0]!.position, result.previousPosition, () => recorded)) appendNotInTail = true
      streams.appended(stream, recorded[0]!.revision - 1, recorded)
    }
    appended.emit('append')
    return { revision: result.revision, position: result.position }
  }
  const readStreamNow = (stream: string) => storeWorkNow(() => readStream(stream))
  const readAllNow = (after: number, limit: number) => storeWorkNow(() => readAll(after, limit))

  return {
    db,
    appended,
    append: (stream, events, expected) => Effect.try({ try: () => appendNow(stream, events, expected), catch: (e) => e as WrongExpectedRevision | StoreUnavailable }),
    readStream: (stream) => Effect.try({ try: () => readStreamNow(stream), catch: (e) => e as StoreUnavailable }),
    readAll: (after, limit) => Effect.try({ try: () => readAllNow(after, limit), catch: (e) => e as StoreUnavailable }),
    appendNow,
    readStreamNow,
    ...(db.memory ? {} : { readAllAhead: (after: number, limit: number) => readLogOffThread(file, after, limit) }),
    readAllNow,
  }
}

/** The store for the lifetime of a scope, its log checkpointed off the thread: its file is closed when the scope closes. */
export const sqliteEventStore = (file: string, log: CheckpointLog, withinAppend?: WithinAppend): Effect.Effect<SqliteEventStore, never, Scope.Scope> =>
  scopedWithCheckpointsOffThread(() => makeSqliteEventStore(file, withinAppend), log)
