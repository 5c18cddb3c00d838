import type Database from 'better-sqlite3'
import { Effect } from 'effect'
import { sealedBody } from '../../domain/audit-chain.js'
import { decodeStored, eventTypesOf } from '../../domain/events.js'
import type { AuditEntry, AuditFilter, AuditTrailService } from '../../ports/audit-trail.js'
import { StoreUnavailable } from '../../ports/event-store.js'
import { preparedStatements } from './database.js'
import { AUDITED_CATEGORIES, auditFields } from '../../projections/audit.js'
import { ensureAuditChainTables, storedEventOf } from './audit-chain.js'

interface Row {
  position: number; event_id: string; stream: string; revision: number; type: string; org_id: string; occurred_at: string; data: string; metadata: string
}

/** Prepared statement shapes kept: one per combination of filters and query (a few dozen at most). */
const MAX_PREPARED = 64

/**
 * The audit trail read from the embedded event log (events.db) rather than from a read model: every event of the
 * audited categories is an entry, built as the audit projection builds its documents (auditFields), so the answers
 * equal those of its read model (projections/audit-queries.ts), which the scale-out profile keeps instead. The log
 * holds each organization's events under an index on (org_id, position), so no document is written per event and a
 * replay has no audit trail to rebuild. The export's records join each event with its organization chain's link
 * (infra/sqlite/audit-chain.ts).
 */
export const makeSqliteAuditTrail = (db: Database.Database): AuditTrailService => {
  db.exec('create index if not exists events_by_org on events (org_id, position)')
  ensureAuditChainTables(db)
  // Types are unique across categories (the event union is told apart by type), so the audited categories' types
  // select their streams' events; a type this version does not know is left out, as the projection skips it.
  const audited = AUDITED_CATEGORIES.flatMap((category) => [...eventTypesOf(category)])
  const auditedTypes = `type in (${audited.map((type) => `'${type}'`).join(', ')})`
  const statement = preparedStatements(db, MAX_PREPARED)
  const where = (orgId: string, filter: AuditFilter) => {
    const parts = ['events.org_id = ?', auditedTypes]
    const params: unknown[] = [orgId]
    if (filter.type !== undefined) { parts.push('type = ?'); params.push(filter.type) }
    if (filter.actor !== undefined) { parts.push(`json_extract(metadata, '$.actor') = ?`); params.push(filter.actor) }
    if (filter.from !== undefined) { parts.push('occurred_at >= ?'); params.push(filter.from) }
    if (filter.to !== undefined) { parts.push('occurred_at <= ?'); params.push(filter.to) }
    return { sql: parts.join(' and '), params }
  }
  const attempt = <A>(f: () => A) => Effect.try({ try: f, catch: (cause) => new StoreUnavailable({ cause }) })
  const entries = (rows: readonly Row[]): AuditEntry[] => rows.flatMap((row) => {
    const decoded = decodeStored(AUDITED_CATEGORIES, { stream: row.stream, type: row.type, data: JSON.parse(row.data) })
    if (!decoded.ok) return []
    const { org_id: _org, ...fields } = auditFields(decoded.event, { ...row, revision: 0, metadata: JSON.parse(row.metadata) })
    // As a document store answers it: the detail as JSON holds it (no undefined fields, no class instances).
    return [{ event_id: row.event_id, ...fields, detail: JSON.parse(JSON.stringify(fields.detail)) }]
  })
  return {
    page: (orgId, page, perPage, filter) => attempt(() => {
      const { sql, params } = where(orgId, filter)
      const rows = statement(`select * from events where ${sql} order by position desc limit ? offset ?`).all(...params, perPage, (page - 1) * perPage) as Row[]
      const total = (statement(`select count(*) as n from events where ${sql}`).get(...params) as { n: number }).n
      return { items: entries(rows), total }
    }),
    records: (orgId, filter, afterPosition, limit) => attempt(() => {
      const { sql, params } = where(orgId, filter)
      const rows = statement(`select events.*, key_id, org_prev, org_mac from events join audit_chain using (position)
        where ${sql} and audit_chain.org_id = events.org_id and events.position > ? order by events.position limit ?`)
        .all(...params, afterPosition, limit) as (Row & { key_id: string; org_prev: string; org_mac: string })[]
      return rows.map((row) => ({ ...sealedBody(storedEventOf(row)), chain: { key_id: row.key_id, prev: row.org_prev, mac: row.org_mac } }))
    }),
  }
}
