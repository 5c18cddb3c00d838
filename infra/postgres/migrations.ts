import type pg from 'pg'

/**
 * The event store's schema, one migration per version, applied in order on start (each in its own transaction, under
 * a lock, so processes starting together apply each once). A version never changes once released: a change is a new
 * version.
 */
const MIGRATIONS: readonly ((schema: string) => string)[] = [
  (schema) => `
    create table "${schema}".events (
      position bigint primary key,
      event_id text not null unique,
      stream text not null,
      revision integer not null,
      type text not null,
      org_id text not null,
      occurred_at text not null,
      data text not null,
      metadata text not null,
      unique (stream, revision)
    )`,
]

const MIGRATION_LOCK = 0x5377_4d67 // "SwMg"

/** Brings `schema` to the latest version; answers the version it is at. */
export const migrate = async (pool: pg.Pool, schema: string): Promise<number> => {
  const client = await pool.connect()
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK])
    try {
      await client.query(`create schema if not exists "${schema}"`)
      await client.query(`create table if not exists "${schema}".schema_migrations (version integer primary key, applied_at timestamptz not null default now())`)
      const applied = Number((await client.query<{ version: number | null }>(`select max(version) as version from "${schema}".schema_migrations`)).rows[0]?.version ?? 0)
      for (let version = applied + 1; version <= MIGRATIONS.length; version++) {
        await client.query('begin')
        try {
          await client.query(MIGRATIONS[version - 1]!(schema))
          await client.query(`insert into "${schema}".schema_migrations (version) values ($1)`, [version])
          await client.query('commit')
        } catch (error) {
          await client.query('rollback')
          throw error
        }
      }
      return MIGRATIONS.length
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK])
    }
  } finally {
    client.release()
  }
}
