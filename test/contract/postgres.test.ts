import { randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import pg from 'pg'
import t from 'tap'
import { postgresEventStore } from '../../infra/postgres/event-store.js'
import { migrate } from '../../infra/postgres/migrations.js'
import type { NewEvent, RecordedEvent } from '../../ports/event-store.js'
import { acquire } from '../helpers/scoped.js'
import { eventStoreContract } from './event-store.contract.js'

/**
 * The PostgreSQL event store (scale-out) on a real server: the port's contract, then what only a shared server can
 * get wrong: positions under concurrent writers and slow transactions. Skipped without DATABASE_URL, except with
 * REQUIRE_SERVICES=1 (CI), where it fails.
 */
const url = process.env.DATABASE_URL
if (!url) {
  if (process.env.REQUIRE_SERVICES === '1') t.fail('PostgreSQL event store: DATABASE_URL is not set but REQUIRE_SERVICES=1')
  else t.test('PostgreSQL event store', { skip: 'set DATABASE_URL to run it' }, async () => {})
} else {
  const admin = new pg.Pool({ connectionString: url, max: 2 })
  t.teardown(() => admin.end())
  const freshSchema = () => `contract_${randomUUID().slice(0, 8)}`
  const dropSchema = (schema: string) => admin.query(`drop schema if exists "${schema}" cascade`)
  const storeIn = async (schema: string) => {
    const { value: store, release } = await acquire(postgresEventStore({ url, schema }))
    return { store, release }
  }
  const event = (i: number): NewEvent => ({
    event_id: randomUUID(), type: 'Thing', org_id: 'org-1', occurred_at: '2026-12-02T12:00:00.000Z', data: { i, z: 1, a: 2 },
    metadata: { correlation_id: 'c', causation_id: null, actor: 'test' },
  })

  eventStoreContract(t, 'PostgreSQL', async () => {
    const schema = freshSchema()
    const { store, release } = await storeIn(schema)
    return { store, cleanup: async () => { await release(); await dropSchema(schema) } }
  })

  t.test('migrations: applied once, in order, by processes starting together; a later start changes nothing', async (t) => {
    const schema = freshSchema()
    t.teardown(() => dropSchema(schema))
    const pools = [1, 2, 3].map(() => new pg.Pool({ connectionString: url, max: 1 }))
    t.teardown(() => Promise.all(pools.map((pool) => pool.end())))
    t.same(await Promise.all(pools.map((pool) => migrate(pool, schema))), [1, 1, 1])
    const applied = await admin.query<{ version: number }>(`select version from "${schema}".schema_migrations order by version`)
    t.same(applied.rows.map((row) => row.version), [1], 'each version recorded once')
    t.equal(await migrate(pools[0]!, schema), 1)
  })

  t.test('a reader following the log never skips an event, whatever the writers and however slow a transaction', async (t) => {
    const schema = freshSchema()
    const writers = await Promise.all([1, 2, 3, 4].map(() => storeIn(schema)))
    const { store: reader, release: releaseReader } = await storeIn(schema)
    t.teardown(async () => { for (const w of writers) await w.release(); await releaseReader(); await dropSchema(schema) })

    const seen: RecordedEvent[] = []
    let writing = true
    const follow = (async () => {
      while (writing || seen.length < 200) {
        const after = seen.at(-1)?.position ?? 0
        const read = await Effect.runPromise(reader.readAll(after, 50))
        seen.push(...read)
        if (read.length === 0) await new Promise((resolve) => setTimeout(resolve, 2))
      }
    })()
    // A transaction holding the append lock for a while, as a slow append would, in the middle of the writes.
    const slow = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 30))
      const client = await admin.connect()
      try {
        await client.query('begin')
        await client.query('select pg_advisory_xact_lock($1)', [0x5377_4576])
        await client.query('select pg_sleep(0.3)')
        await client.query('commit')
      } finally {
        client.release()
      }
    })()
    await Promise.all([slow, ...writers.map(async ({ store }, w) => {
      for (let i = 0; i < 50; i++) await Effect.runPromise(store.append(`thing-${w}`, [event(i)], i === 0 ? 'no_stream' : i - 1))
    })])
    writing = false
    await follow
    const all = await Effect.runPromise(reader.readAll(0, 1000))
    t.equal(all.length, 200, 'every append recorded')
    t.same(all.map((e) => e.position), Array.from({ length: 200 }, (_, i) => i + 1), 'positions 1..200, no gap')
    t.same(seen.map((e) => e.event_id), all.map((e) => e.event_id), 'the follower read every event, in log order, none skipped')
    t.same(all[0]!.data, { i: 0, z: 1, a: 2 }, 'data as appended, key order kept')
  })
}

t.test('EVENT_STORE=postgres selects the PostgreSQL event store and needs DATABASE_URL', async (t) => {
  const { loadAdapterSettings } = await import('../../infra/config.js')
  t.same(loadAdapterSettings({ EVENT_STORE: 'postgres', DATABASE_URL: 'postgres://u@db:5432/events' }).eventStore, { kind: 'postgres', url: 'postgres://u@db:5432/events' })
  t.throws(() => loadAdapterSettings({ EVENT_STORE: 'postgres' }), /DATABASE_URL/, 'a clear error without DATABASE_URL')
  t.throws(() => loadAdapterSettings({ EVENT_STORE: 'oracle' }), /EVENT_STORE must be one of sqlite, eventstoredb, postgres/)
})
