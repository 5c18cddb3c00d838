import { Context, type Effect } from 'effect'
import type { ExportRecord } from '../domain/audit-chain.js'
import type { Unavailable } from '../domain/errors.js'
import type { StoreUnavailable } from './event-store.js'

/** One entry of an organization's audit trail: one recorded event, who caused it and its fields without secrets. */
export type AuditEntry = {
  readonly event_id: string
  /** The event's position in the log: entries are ordered by it. */
  readonly position: number
  readonly type: string
  readonly stream: string
  readonly occurred_at: string
  readonly actor: string
  readonly correlation_id: string
  /** The event's fields, without secrets, their hashes and bulky payloads. */
  readonly detail: Readonly<Record<string, unknown>>
}

export interface AuditFilter {
  readonly type?: string
  readonly actor?: string
  /** Inclusive ISO instants on `occurred_at`. */
  readonly from?: string
  readonly to?: string
}

/**
 * The audit trail's queries. Every answer holds the entries of one organization only. Embedded, it is read from the
 * event log itself (no read model to write per event); on scale-out, from the audit read model.
 */
export interface AuditTrailService {
  /** One page (1-based) of the entries matching `filter`, newest first, and how many match in all. */
  readonly page: (orgId: string, page: number, perPage: number, filter: AuditFilter) =>
    Effect.Effect<{ readonly items: readonly AuditEntry[]; readonly total: number }, StoreUnavailable>
  /**
   * The export's records: at most `limit` events of the organization's audit chain matching `filter` after position
   * `afterPosition`, oldest first (a keyset walk), each with its link as stored when it was appended (never computed again). Where the
   * event store keeps no chain (EventStoreDB), Unavailable `audit_chain_not_kept`.
   */
  readonly records: (orgId: string, filter: AuditFilter, afterPosition: number, limit: number) =>
    Effect.Effect<readonly ExportRecord[], StoreUnavailable | Unavailable>
}

export class AuditTrail extends Context.Tag('AuditTrail')<AuditTrail, AuditTrailService>() {}
