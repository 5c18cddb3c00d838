import { Effect } from 'effect'
import { Unavailable } from '../domain/errors.js'
import { AuditTrail, type AuditEntry, type AuditFilter, type AuditTrailService } from '../ports/audit-trail.js'
import { DocumentStore, type Filter } from '../ports/document-store.js'
import { AUDIT, type AuditEntryDoc } from './audit.js'

const whereOf = (orgId: string, filter: AuditFilter): Filter => ({
  org_id: orgId,
  ...(filter.type !== undefined ? { type: filter.type } : {}),
  ...(filter.actor !== undefined ? { actor: filter.actor } : {}),
  ...(filter.from !== undefined || filter.to !== undefined
    ? { occurred_at: { ...(filter.from !== undefined ? { $gte: filter.from } : {}), ...(filter.to !== undefined ? { $lte: filter.to } : {}) } }
    : {}),
})

const entryOf = ({ _id, _position, org_id, ...entry }: AuditEntryDoc): AuditEntry => ({ event_id: _id, ...entry })

/** The audit trail read from its read model (auditProjection): the scale-out profile's adapter of the AuditTrail port. */
export const auditTrailOfReadModel = Effect.map(DocumentStore, (docs): AuditTrailService => {
  const find = (where: Filter, sort: 'asc' | 'desc', skip: number, limit: number) =>
    Effect.map(docs.find(AUDIT.name, where, { sort: [['position', sort]], skip, limit }), (found) => (found as readonly AuditEntryDoc[]).map(entryOf))
  return {
    page: (orgId, page, perPage, filter) => {
      const where = whereOf(orgId, filter)
      return Effect.map(
        Effect.all([find(where, 'desc', (page - 1) * perPage, perPage), docs.count(AUDIT.name, where)]),
        ([items, total]) => ({ items, total }),
      )
    },
    // The chain is made in the append's transaction, which only the SQLite event store offers (docs/audit.md).
    records: () => Effect.fail(new Unavailable({ code: 'audit_chain_not_kept', message: 'this deployment\'s event store keeps no audit chain (see docs/audit.md)' })),
  }
})

/** One page of an organization's audit trail, newest first, from the process's AuditTrail (the log or the read model). */
export const auditPage = (orgId: string, page: number, perPage: number, filter: AuditFilter) =>
  Effect.flatMap(AuditTrail, (trail) => trail.page(orgId, page, perPage, filter))

/** The export's records after a position, oldest first, with their stored links (the export walks them with this keyset). */
export const auditRecords = (orgId: string, filter: AuditFilter, afterPosition: number, limit: number) =>
  Effect.flatMap(AuditTrail, (trail) => trail.records(orgId, filter, afterPosition, limit))
