import type { FastifyInstance } from 'fastify'
import { Either } from 'effect'
import { placeHold, releaseHold, setRetentionPolicy } from '../../commands/retention.js'
import { PLANS, type PlanName } from '../../domain/plans.js'
import { JUSTIFICATION_MAX_LENGTH, SCOPE_REF_MAX_LENGTH, validateHoldRequest, validateReleaseRequest } from '../../domain/retention/hold.js'
import { validatePolicyRequest } from '../../domain/retention/policy.js'
import { waitForPosition } from '../../projections/read-your-writes.js'
import { LEGAL_HOLDS, RETENTION_POLICIES, type LegalHoldDoc } from '../../projections/retention.js'
import { activeHolds, effectivePolicy, getHold, jobOfArtifact, lifecycleJob, listHolds } from '../../projections/retention-queries.js'
import { principalOf, requireApiKey } from '../auth.js'
import type { RouteContext } from '../context.js'
import { requestMetadata } from '../event-metadata.js'
import { errors, pagingProperties, security } from './route-helpers.js'

const PolicySchema = {
  type: 'object',
  properties: {
    retention_days: { type: 'integer', description: 'Jobs and their artifacts are purged this many days after the job was requested.' },
    legal_hold_enabled: { type: 'boolean', description: 'Whether legal holds may be placed (Pro plans and above).' },
    max_retention_days: { type: 'integer', description: 'The plan ceiling.' },
    retention_adjustable: { type: 'boolean', description: 'Whether the plan lets retention_days change (Business and Enterprise).' },
    policy_version: { type: 'integer', description: 'Increments on every change; 0 while the plan defaults apply.' },
    updated_at: { type: ['string', 'null'] },
  },
} as const

const HoldSchema = {
  type: 'object',
  properties: {
    hold_id: { type: 'string' }, scope_type: { type: 'string', enum: ['org', 'job', 'artifact'] }, scope_ref: { type: 'string' },
    status: { type: 'string', enum: ['active', 'released'] }, justification: { type: 'string' }, placed_at: { type: 'string' }, placed_by: { type: 'string' },
    released_at: { type: ['string', 'null'] }, released_by: { type: ['string', 'null'] }, release_justification: { type: ['string', 'null'] },
  },
} as const

const holdView = ({ _id, _position, org_id, ...hold }: LegalHoldDoc) => hold

const unwrap = <A, E>(result: Either.Either<A, E>): A => {
  if (Either.isLeft(result)) throw result.left
  return result.right
}

/** What validateHoldRequest and validateReleaseRequest accept as a justification: some text that is not only spaces. */
const JustificationSchema = { type: 'string', minLength: 1, maxLength: JUSTIFICATION_MAX_LENGTH, pattern: '\\S', description: 'Why; recorded in the audit log.' } as const
const holdIdParams = { type: 'object', required: ['hold_id'], properties: { hold_id: { type: 'string', maxLength: 64 } } } as const

export const retentionRoutes = async (app: FastifyInstance, ctx: RouteContext) => {
  const policyOf = async (orgId: string, plan: PlanName) => {
    const policy = await ctx.run(effectivePolicy(orgId, plan))
    return { ...policy, retention_adjustable: PLANS[plan].retention.adjustable }
  }

  app.get('/v1/org/retention-policy', {
    preHandler: requireApiKey(ctx, 'org.read'),
    schema: { tags: ['retention'], summary: 'The retention policy of the organization', security, response: { 200: PolicySchema, ...errors(401, 403) } },
  }, async (request) => {
    const principal = principalOf(request)
    return policyOf(principal.org_id, principal.plan as PlanName)
  })

  app.put('/v1/org/retention-policy', {
    preHandler: requireApiKey(ctx, 'org.manage'),
    schema: {
      tags: ['retention'], summary: 'Change the retention policy', security,
      description: 'Both fields are required (missing: 400 `missing_retention_days` / `missing_legal_hold_enabled`). 422 codes: `invalid_retention_days` (not a whole number of at least 1), `retention_days_above_plan_maximum`, `retention_not_adjustable` (a different `retention_days` on a plan whose retention is fixed: Free, Starter, Pro), `invalid_legal_hold_enabled`, `unknown_field`. 403 `legal_holds_not_in_plan` when enabling legal holds below Pro. 409 `legal_holds_active` when turning legal holds off while a hold is in force. A change increments `policy_version` and is recorded in the audit log with its actor; a request that changes nothing records nothing. A shorter retention applies at the next purge sweep.',
      body: { type: 'object', properties: { retention_days: { type: 'integer' }, legal_hold_enabled: { type: 'boolean' } } },
      response: { 200: PolicySchema, ...errors(400, 401, 403, 409, 422) },
    },
  }, async (request) => {
    const principal = principalOf(request)
    const wanted = unwrap(validatePolicyRequest(request.body))
    const holds = await ctx.run(activeHolds(principal.org_id))
    const set = await ctx.run(setRetentionPolicy({
      org_id: principal.org_id, plan: principal.plan as PlanName, ...wanted, active_holds: holds.length,
      metadata: requestMetadata(request, `api_key:${principal.key_id}`),
    }))
    if (set.events.length > 0) await ctx.run(waitForPosition(RETENTION_POLICIES, principal.org_id, set.position))
    return policyOf(principal.org_id, principal.plan as PlanName)
  })

  app.post('/v1/org/retention-holds', {
    preHandler: requireApiKey(ctx, 'org.manage'),
    schema: {
      tags: ['retention'], summary: 'Place a legal hold', security,
      description: 'Blocks the purge of the whole organization (`org`; `scope_ref` may be left out or be the organization id), of one job (with its artifacts) or of one artifact (and the job record describing it), even past retention and on deletion requests. Several holds on one scope accumulate; each is released on its own. Answers 201 with the hold. 400 `missing_scope_type` / `missing_scope_ref` / `missing_justification`; 422 `invalid_scope_type`, `invalid_scope_ref` (not a job or artifact of the organization, or another organization), `invalid_justification` (empty or over 2000 characters), `unknown_field`; 403 `legal_holds_not_in_plan` below Pro; 409 `legal_holds_disabled` while the policy has `legal_hold_enabled: false`. The justification is recorded in the audit log.',
      body: {
        type: 'object', required: ['scope_type', 'justification'], additionalProperties: false,
        properties: {
          scope_type: { type: 'string', enum: ['org', 'job', 'artifact'] },
          scope_ref: { type: 'string', minLength: 1, maxLength: SCOPE_REF_MAX_LENGTH, description: 'The job or artifact id; required for `job` and `artifact`.' },
          justification: JustificationSchema,
        },
      },
      response: { 201: HoldSchema, ...errors(400, 401, 403, 409, 422) },
    },
  }, async (request, reply) => {
    const principal = principalOf(request)
    const wanted = unwrap(validateHoldRequest(request.body))
    const ref = wanted.scope_ref ?? principal.org_id
    // Facts of the read model the decider needs: whether the job or artifact held is this organization's.
    const found = wanted.scope_type === 'job' ? !!(await ctx.run(lifecycleJob(principal.org_id, ref)))
      : wanted.scope_type === 'artifact' ? !!(await ctx.run(jobOfArtifact(principal.org_id, ref))) : true
    const placed = await ctx.run(placeHold({
      org_id: principal.org_id, plan: principal.plan as PlanName, scope_type: wanted.scope_type, scope_ref: ref, scope_found: found,
      justification: wanted.justification, metadata: requestMetadata(request, `api_key:${principal.key_id}`),
    }))
    // The hold is in force once the purger can see it: answered only then.
    await ctx.run(waitForPosition(LEGAL_HOLDS, placed.hold_id, placed.position))
    return reply.code(201).send(holdView(await ctx.run(getHold(principal.org_id, placed.hold_id))))
  })

  app.get('/v1/org/retention-holds', {
    preHandler: requireApiKey(ctx, 'org.read'),
    schema: {
      tags: ['retention'], summary: 'List legal holds, newest first', security,
      querystring: { type: 'object', additionalProperties: false, properties: { status: { type: 'string', enum: ['active', 'released'] }, ...pagingProperties(50) } },
      response: {
        200: { type: 'object', properties: { items: { type: 'array', items: HoldSchema }, total: { type: 'integer' }, page: { type: 'integer' }, per_page: { type: 'integer' } } },
        ...errors(401, 403, 422),
      },
    },
  }, async (request) => {
    const q = request.query as { status?: string; page: number; per_page: number }
    const { items, total } = await ctx.run(listHolds(principalOf(request).org_id, q))
    return { items: items.map(holdView), total, page: q.page, per_page: q.per_page }
  })

  app.post('/v1/org/retention-holds/:hold_id/release', {
    preHandler: requireApiKey(ctx, 'org.manage'),
    schema: {
      tags: ['retention'], summary: 'Release a legal hold', security, params: holdIdParams,
      description: 'Other holds on the same scope stay in force. 400 `missing_justification`; 422 `invalid_justification`, `unknown_field`; 404 `hold_not_found` (also another organization\'s hold); 409 `hold_already_released`.',
      body: { type: 'object', required: ['justification'], additionalProperties: false, properties: { justification: JustificationSchema } },
      response: { 200: HoldSchema, ...errors(400, 401, 403, 404, 409, 422) },
    },
  }, async (request) => {
    const principal = principalOf(request)
    const { hold_id } = request.params as { hold_id: string }
    const { justification } = unwrap(validateReleaseRequest(request.body))
    const released = await ctx.run(releaseHold({ org_id: principal.org_id, hold_id, justification, metadata: requestMetadata(request, `api_key:${principal.key_id}`) }))
    await ctx.run(waitForPosition(LEGAL_HOLDS, hold_id, released.position))
    return holdView(await ctx.run(getHold(principal.org_id, hold_id)))
  })
}
