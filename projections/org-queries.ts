import { Effect } from 'effect'
import { NotFound } from '../domain/errors.js'
import type { Filter } from '../ports/document-store.js'
import { AUDIT } from './audit.js'
import { API_KEYS, ORGS } from './orgs.js'
import { countDocs, findDocs, getDoc } from './projection.js'

export const getOrg = (orgId: string) =>
  Effect.gen(function* () {
    const doc = yield* getDoc(ORGS, orgId)
    if (!doc) return yield* Effect.fail(new NotFound({ resource: 'org', id: orgId }))
    return doc
  })

export const listKeys = (orgId: string) => findDocs(API_KEYS, { org_id: orgId }, { sort: [['created_at', 'asc'], ['key_id', 'asc']] })

export const getKey = (orgId: string, keyId: string) =>
  Effect.gen(function* () {
    const doc = yield* getDoc(API_KEYS, keyId)
    if (!doc || doc.org_id !== orgId) return yield* Effect.fail(new NotFound({ resource: 'api_key', id: keyId }))
    return doc
  })

export interface AuditFilter {
  readonly type?: string
  readonly actor?: string
  /** Inclusive ISO instants on `occurred_at`. */
  readonly from?: string
  readonly to?: string
}

const auditFilter = (orgId: string, filter: AuditFilter): Filter => ({
  org_id: orgId,
  ...(filter.type !== undefined ? { type: filter.type } : {}),
  ...(filter.actor !== undefined ? { actor: filter.actor } : {}),
  ...(filter.from !== undefined || filter.to !== undefined
    ? { occurred_at: { ...(filter.from !== undefined ? { $gte: filter.from } : {}), ...(filter.to !== undefined ? { $lte: filter.to } : {}) } }
    : {}),
})

export const listAudit = (orgId: string, page: number, perPage: number, filter: AuditFilter = {}) =>
  Effect.gen(function* () {
    const where = auditFilter(orgId, filter)
    const [items, total] = yield* Effect.all([
      findDocs(AUDIT, where, { sort: [['position', 'desc']], skip: (page - 1) * perPage, limit: perPage }),
      countDocs(AUDIT, where),
    ])
    return { items, total }
  })

/** One batch of the audit entries after `afterPosition`, oldest first (the export walks them with this keyset). */
export const auditBatch = (orgId: string, filter: AuditFilter, afterPosition: number, limit: number) => {
  const where = auditFilter(orgId, filter)
  return findDocs(AUDIT, { ...where, position: { $gt: afterPosition } }, { sort: [['position', 'asc']], limit })
}
