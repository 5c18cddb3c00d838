import { Effect, Layer, type Scope } from 'effect'
import pg from 'pg'
import {
  EventStore, StoreUnavailable, WrongExpectedRevision, type AppendResult, type EventStoreService, type ExpectedRevision, type NewEvent,
  type RecordedEvent,
} from '../../ports/event-store.js'
import { migrate } from './migrations.js'

export interface PostgresEventStoreOptions {
  /** DATABASE_URL: `postgres://user:password@host:port/database`. */
  readonly url: string
  /** The schema its tables live in (created when missing); `public` by default. */
  readonly schema?: string
}

interface EventRow {
  readonly position: string
  readonly event_id: string
  readonly stream: string
  readonly revision: number
  readonly type: string
  readonly org_id: string
  readonly occurred_at: string
  readonly data: string
  readonly metadata: string
}

const toRecorded = (row: EventRow): RecordedEvent => ({
  position: Number(row.position), event_id: row.event_id, stream: row.stream, revision: row.revision, type: row.type,
  org_id: row.org_id, occurred_at: row.occurred_at, data: JSON.parse(row.data), metadata: JSON.parse(row.metadata),
})

/**
 * The lock every append takes for its transaction. Appends are serialized by it, so positions are handed out in
 * commit order: a reader that saw position N can never later find an event below N committed after it looked (the
 * gap a sequence leaves when a transaction that took a number commits late). One append at a time is the price.
 */
const APPEND_LOCK = 0x5377_4576 // "SwEv"

const SAFE_SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/

/**
 * The event store of record on PostgreSQL (docs/scale-out.md): a table of events with their stream revision and
 * global position; expected revisions checked in the append's transaction. Data and metadata are kept as the JSON
 * text appended (jsonb would reorder keys and drop duplicates).
 */
export const makePostgresEventStore = (pool: pg.Pool, schema: string): EventStoreService => {
  const table = `"${schema}".events`
  const failure = (cause: unknown) => (cause instanceof WrongExpectedRevision ? cause : new StoreUnavailable({ cause }))

  const appendInTransaction = async (client: pg.PoolClient, stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> => {
    await client.query('select pg_advisory_xact_lock($1)', [APPEND_LOCK])
    const head = (await client.query<{ revision: number; position: string }>(`select revision, position from ${table} where stream = $1 order by revision desc limit 1`, [stream])).rows[0]
    // A retried append whose first event is in the stream already appends nothing and answers the stream's head.
    const first = events[0]
    const duplicate = first && (await client.query<{ stream: string }>(`select stream from ${table} where event_id = $1`, [first.event_id])).rows[0]
    if (duplicate && duplicate.stream === stream && head) return { revision: head.revision, position: Number(head.position) }
    const matches = expected === 'any' || (expected === 'no_stream' ? head === undefined : head?.revision === expected)
    if (!matches) throw new WrongExpectedRevision({ stream, expected, actual: head ? head.revision : 'no_stream' })
    if (events.length === 0) return { revision: head ? head.revision : -1, position: head ? Number(head.position) : 0 }
    const last = (await client.query<{ position: string | null }>(`select max(position) as position from ${table}`)).rows[0]!.position
    const firstPosition = Number(last ?? 0) + 1
    const firstRevision = head ? head.revision + 1 : 0
    const values: unknown[] = []
    const rows = events.map((event, i) => {
      values.push(firstPosition + i, event.event_id, stream, firstRevision + i, event.type, event.org_id, event.occurred_at, JSON.stringify(event.data), JSON.stringify(event.metadata))
      const at = i * 9
      return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6}, $${at + 7}, $${at + 8}, $${at + 9})`
    })
    await client.query(`insert into ${table} (position, event_id, stream, revision, type, org_id, occurred_at, data, metadata) values ${rows.join(', ')}`, values)
    const lastPosition = firstPosition + events.length - 1
    // Delivered at commit only: a listener is never told of an event it cannot read yet.
    await client.query('select pg_notify($1, $2)', [`${schema}_events`, String(lastPosition)])
    return { revision: firstRevision + events.length - 1, position: lastPosition }
  }

  return {
    append: (stream, events, expected) => Effect.tryPromise({
      try: async () => {
        const client = await pool.connect()
        try {
          await client.query('begin')
          const result = await appendInTransaction(client, stream, events, expected)
          await client.query('commit')
          return result
        } catch (error) {
          await client.query('rollback').catch(() => undefined)
          throw error
        } finally {
          client.release()
        }
      },
      catch: failure,
    }),
    readStream: (stream) => Effect.tryPromise({
      try: async () => (await pool.query<EventRow>(`select * from ${table} where stream = $1 order by revision`, [stream])).rows.map(toRecorded),
      catch: (cause) => new StoreUnavailable({ cause }),
    }),
    readAll: (after, limit) => Effect.tryPromise({
      try: async () => (await pool.query<EventRow>(`select * from ${table} where position > $1 order by position limit $2`, [after, limit])).rows.map(toRecorded),
      catch: (cause) => new StoreUnavailable({ cause }),
    }),
  }
}

/** The store for the lifetime of a scope: its schema migrated on start, its connections closed when the scope closes. */
export const postgresEventStore = (options: PostgresEventStoreOptions): Effect.Effect<EventStoreService, StoreUnavailable, Scope.Scope> => {
  const schema = options.schema ?? 'public'
  if (!SAFE_SCHEMA.test(schema)) return Effect.fail(new StoreUnavailable({ cause: new Error(`invalid schema name: ${schema}`) }))
  return Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const pool = new pg.Pool({ connectionString: options.url, max: 8 })
        // An idle connection the server dropped is reported here rather than crashing the process.
        pool.on('error', () => undefined)
        try {
          await migrate(pool, schema)
        } catch (error) {
          await pool.end()
          throw error
        }
        return pool
      },
      catch: (cause) => new StoreUnavailable({ cause }),
    }),
    (pool) => Effect.promise(() => pool.end()),
  ).pipe(Effect.map((pool) => makePostgresEventStore(pool, schema)))
}

export const PostgresEventStoreLive = (options: PostgresEventStoreOptions) => Layer.scoped(EventStore, postgresEventStore(options))
