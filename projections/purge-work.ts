import { Effect } from 'effect'
import { isPlanName } from '../domain/plans.js'
import type { Filter } from '../ports/document-store.js'
import { LIFECYCLE_JOBS } from './lifecycle.js'
import { ORGS } from './orgs.js'
import { findDocs } from './projection.js'
import { activeHolds, effectivePolicy } from './retention-queries.js'

interface Page { readonly from: string; readonly limit: number }

const oldestFirst = (page: Page) => ({ sort: [['created_at', 'asc'], ['job_id', 'asc']] as const, limit: page.limit })
const fromRequestTime = (page: Page): Filter => page.from === '' ? {} : { created_at: { $gte: page.from } }

/** The purger's reads (its SweepReads): organizations with their retention, active holds, and its work lists. */
export const purgeWork = {
  orgs: Effect.gen(function* () {
    const orgs = yield* findDocs(ORGS, {}, { sort: [['org_id', 'asc']] })
    return yield* Effect.forEach(orgs.filter((org) => isPlanName(org.plan)), (org) =>
      Effect.map(effectivePolicy(org.org_id, org.plan as Parameters<typeof effectivePolicy>[1]), (policy) => ({ org_id: org.org_id, retention_days: policy.retention_days })))
  }),
  activeHolds,
  expired: (orgId: string, cutoff: string, page: Page) =>
    findDocs(LIFECYCLE_JOBS, { org_id: orgId, open: true, created_at: { ...(page.from === '' ? {} : { $gte: page.from }), $lte: cutoff } }, oldestFirst(page)),
  deletionRequested: (page: Page) => findDocs(LIFECYCLE_JOBS, { deletion_requested: true, open: true, ...fromRequestTime(page) }, oldestFirst(page)),
  blobsPending: (page: Page) => findDocs(LIFECYCLE_JOBS, { blobs_pending: true, ...fromRequestTime(page) }, oldestFirst(page)),
}
