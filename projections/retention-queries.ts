import { Effect } from 'effect'
import { NotFound } from '../domain/errors.js'
import { PLANS, type PlanName } from '../domain/plans.js'
import { defaultPolicy, type RetentionPolicy } from '../domain/retention/policy.js'
import { LIFECYCLE_JOBS } from './lifecycle.js'
import { countDocs, findDocs, getDoc } from './projection.js'
import { LEGAL_HOLDS, RETENTION_POLICIES } from './retention.js'

/** The policy in force: the recorded one, or the plan's default; with the plan's ceiling. */
export const effectivePolicy = (orgId: string, plan: PlanName) =>
  Effect.map(getDoc(RETENTION_POLICIES, orgId), (doc): RetentionPolicy & { readonly max_retention_days: number; readonly updated_at: string | null } => ({
    ...(doc ? { retention_days: doc.retention_days, legal_hold_enabled: doc.legal_hold_enabled, policy_version: doc.policy_version } : defaultPolicy(plan)),
    max_retention_days: PLANS[plan].retention.maxDays,
    updated_at: doc?.updated_at ?? null,
  }))

export const activeHolds = (orgId: string) => findDocs(LEGAL_HOLDS, { org_id: orgId, status: 'active' }, { sort: [['placed_at', 'asc'], ['hold_id', 'asc']] })

export const listHolds = (orgId: string, query: { readonly status?: string; readonly page: number; readonly per_page: number }) =>
  Effect.gen(function* () {
    const filter = { org_id: orgId, ...(query.status !== undefined ? { status: query.status } : {}) }
    const [items, total] = yield* Effect.all([
      findDocs(LEGAL_HOLDS, filter, { sort: [['placed_at', 'desc'], ['hold_id', 'asc']], skip: (query.page - 1) * query.per_page, limit: query.per_page }),
      countDocs(LEGAL_HOLDS, filter),
    ])
    return { items, total }
  })

/** Another organization's hold is indistinguishable from a missing one. */
export const getHold = (orgId: string, holdId: string) =>
  Effect.gen(function* () {
    const doc = yield* getDoc(LEGAL_HOLDS, holdId)
    if (!doc || doc.org_id !== orgId) return yield* Effect.fail(new NotFound({ resource: 'hold', id: holdId }))
    return doc
  })

/** The job (of this organization, not purged) that holds an artifact, or null. */
export const jobOfArtifact = (orgId: string, artifactId: string) =>
  Effect.map(findDocs(LIFECYCLE_JOBS, { org_id: orgId, artifact_ids: artifactId }, { limit: 1 }), ([doc]) =>
    doc && !doc.purged && doc.artifacts.some((a) => a.artifact_id === artifactId && a.state === 'live') ? doc : null)

/** A job of this organization that is not purged, as the purger sees it, or null. */
export const lifecycleJob = (orgId: string, jobId: string) =>
  Effect.map(getDoc(LIFECYCLE_JOBS, jobId), (doc) => doc && doc.org_id === orgId && !doc.purged ? doc : null)
