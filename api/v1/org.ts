import { Readable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { currentTime } from '../../commands/clock.js'
import { setOrgIpAllowlist } from '../../commands/org-settings.js'
import { fieldError, ValidationFailed } from '../../domain/errors.js'
import { monthOf } from '../../domain/limits.js'
import { validateIpList } from '../../domain/org/key-request.js'
import { PLANS, type PlanName } from '../../domain/plans.js'
import { isPlainObject, unknownFields } from '../../domain/validation.js'
import { getOrg } from '../../projections/org-queries.js'
import type { AuditFilter } from '../../ports/audit-trail.js'
import { auditPage, auditRecords } from '../../projections/audit-queries.js'
import type { OrgDoc } from '../../projections/orgs.js'
import { admissionUsage } from '../../projections/usage-queries.js'
import { principalOf, requireApiKey } from '../auth.js'
import type { RouteContext } from '../context.js'
import { errors, pagingProperties, security } from './route-helpers.js'
import { requestMetadata } from '../event-metadata.js'
import { ORGS } from '../../projections/orgs.js'
import { waitForPosition } from '../../projections/read-your-writes.js'

const orgView = (doc: OrgDoc) => {
  const plan = PLANS[doc.plan as PlanName]
  return {
    org_id: doc.org_id, name: doc.name, plan: doc.plan, created_at: doc.created_at, ip_allowlist: doc.ip_allowlist,
    limits: { concurrent_jobs: plan.concurrentJobs, monthly_credits: plan.monthlyCredits, retention_days: plan.retention.defaultDays },
  }
}

const OrgSchema = {
  type: 'object',
  properties: {
    org_id: { type: 'string' }, name: { type: 'string' }, plan: { type: 'string', enum: ['free', 'starter', 'pro', 'business', 'enterprise'] },
    created_at: { type: 'string' }, ip_allowlist: { type: 'array', items: { type: 'string' } },
    limits: { type: 'object', properties: { concurrent_jobs: { type: 'integer' }, monthly_credits: { type: 'integer' }, retention_days: { type: 'integer' } } },
  },
} as const

const UsageSchema = {
  type: 'object',
  properties: {
    month: { type: 'string', description: 'YYYY-MM (UTC)' }, plan: { type: 'string' }, monthly_credits: { type: 'integer' }, credits_used: { type: 'integer' },
    credits_reserved: { type: 'integer' }, credits_remaining: { type: 'integer' }, jobs_charged: { type: 'integer' }, active_jobs: { type: 'integer' },
    concurrent_jobs_cap: { type: 'integer' },
  },
} as const

const AuditPageSchema = {
  type: 'object',
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          event_id: { type: 'string' }, position: { type: 'integer' }, type: { type: 'string' }, stream: { type: 'string' }, occurred_at: { type: 'string' },
          actor: { type: ['string', 'null'] }, correlation_id: { type: ['string', 'null'] }, detail: { type: 'object', additionalProperties: true },
        },
        additionalProperties: true,
      },
    },
    total: { type: 'integer' }, page: { type: 'integer' }, per_page: { type: 'integer' },
  },
} as const

const EXPORT_BATCH = 500
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/

export const orgRoutes = async (app: FastifyInstance, ctx: RouteContext) => {
  app.get('/v1/org', {
    preHandler: requireApiKey(ctx, 'org.read'),
    schema: { tags: ['org'], summary: 'The organization, its plan limits and IP allowlist', security, response: { 200: OrgSchema, ...errors(401, 403) } },
  }, async (request) => orgView(await ctx.run(getOrg(principalOf(request).org_id))))

  app.put('/v1/org/ip-allowlist', {
    preHandler: requireApiKey(ctx, 'org.manage'),
    schema: {
      tags: ['org'], summary: 'Set the organization IP allowlist', security,
      description: 'v1 calls from addresses outside the list answer 403 `ip_not_allowed` (keys may narrow it further with their own `ip_allowlist`). An empty list allows every address. A list must include the address of the request that sets it (as the service sees it: behind a reverse proxy, configure `TRUST_PROXY`), so an organization cannot lock itself out. 422 codes: `invalid_ip_allowlist`, `missing_ip_allowlist`, `allowlist_excludes_caller`, `unknown_field`. An operator who is locked out anyway clears the list with `npm run --silent cli -- org ip-allowlist clear --org ORG_ID`.',
      body: { type: 'object', required: ['ip_allowlist'], properties: { ip_allowlist: { type: 'array', items: { type: 'string' } } } },
      response: { 200: OrgSchema, ...errors(400, 401, 403, 422) },
    },
  }, async (request) => {
    const principal = principalOf(request)
    const body = request.body
    const problems: ReturnType<typeof fieldError>[] = []
    if (!isPlainObject(body)) throw new ValidationFailed({ errors: [fieldError('', 'invalid_body', 'the body must be a JSON object')] })
    unknownFields(problems, '', body, new Set(['ip_allowlist']))
    if (body.ip_allowlist === undefined) problems.push(fieldError('ip_allowlist', 'missing_ip_allowlist', 'ip_allowlist is required'))
    const list = validateIpList(problems, 'ip_allowlist', body.ip_allowlist)
    if (problems.length > 0 || !list) throw new ValidationFailed({ errors: problems })
    const set = await ctx.run(setOrgIpAllowlist({ org_id: principal.org_id, ip_allowlist: list, caller_ip: request.ip, metadata: requestMetadata(request, `api_key:${principal.key_id}`) }))
    await ctx.run(waitForPosition(ORGS, principal.org_id, set.position))
    return orgView(await ctx.run(getOrg(principal.org_id)))
  })

  app.get('/v1/usage', {
    preHandler: requireApiKey(ctx, 'usage.read'),
    schema: {
      tags: ['org'], summary: 'Credit usage this month', security,
      description: 'Credits are charged once per succeeded job by engine weight (light 1, standard 5, stealth 30); failed jobs cost nothing. `credits_reserved` are the weights of queued and running jobs, counted against the monthly pool at admission.',
      response: { 200: UsageSchema, ...errors(401, 403) },
    },
  }, async (request) => {
    const principal = principalOf(request)
    const now = await ctx.run(currentTime)
    const usage = await ctx.run(admissionUsage(principal.org_id, principal.key_id, now))
    const plan = PLANS[principal.plan as PlanName]
    return {
      month: monthOf(now.toISOString()), plan: plan.name,
      monthly_credits: plan.monthlyCredits, credits_used: usage.creditsUsed, credits_reserved: usage.creditsReserved,
      credits_remaining: Math.max(0, plan.monthlyCredits - usage.creditsUsed - usage.creditsReserved),
      jobs_charged: usage.jobsCharged, active_jobs: usage.activeJobsOrg, concurrent_jobs_cap: plan.concurrentJobs,
    }
  })

  const auditQuery = {
    type: { type: 'string', maxLength: 100, description: 'Only entries of this event type, e.g. `RetentionPolicySet`, `JobPurged`.' },
    actor: { type: 'string', maxLength: 200, description: 'Only entries of this actor, e.g. `api_key:<id>`, `purger`, `cli`.' },
    from: { type: 'string', format: 'date-time', maxLength: 40, description: 'Only entries that occurred at or after this instant (RFC 3339, e.g. `2030-01-31T00:00:00Z`); not a date-time, or over 40 characters: 422 `invalid_from`.' },
    to: { type: 'string', format: 'date-time', maxLength: 40, description: 'Only entries that occurred at or before this instant (RFC 3339); not a date-time, or over 40 characters: 422 `invalid_to`.' },
  } as const
  const instant = (field: 'from' | 'to', value: string | undefined) => {
    if (value === undefined) return {}
    const upper = value.toUpperCase() // RFC 3339 allows a lower-case t and z
    const parsed = ISO_INSTANT.test(upper) ? new Date(upper) : null
    if (!parsed || Number.isNaN(parsed.getTime())) throw new ValidationFailed({ errors: [fieldError(field, `invalid_${field}`, `${field} must be an ISO 8601 date-time, e.g. 2030-01-31T00:00:00Z`)] })
    return { [field]: parsed.toISOString() }
  }
  const filterOf = (q: AuditFilter): AuditFilter => ({
    ...(q.type !== undefined ? { type: q.type } : {}), ...(q.actor !== undefined ? { actor: q.actor } : {}),
    ...instant('from', q.from), ...instant('to', q.to),
  })

  app.get('/v1/audit-log', {
    preHandler: requireApiKey(ctx, 'org.read'),
    schema: {
      tags: ['org'], summary: 'Audit log of the organization, newest first', security,
      description: 'One entry per recorded event (keys created and revoked, settings changed, retention policy changes, legal holds placed and released, jobs requested, finished, deleted and purged, ...) with actor and correlation id. Secrets and their hashes are never included. Filter by `type`, `actor` and the `from`/`to` range of `occurred_at`.',
      querystring: { type: 'object', additionalProperties: false, properties: { ...auditQuery, ...pagingProperties(50) } },
      response: { 200: AuditPageSchema, ...errors(401, 403, 422) },
    },
  }, async (request) => {
    const { page, per_page, ...filter } = request.query as AuditFilter & { page: number; per_page: number }
    const { items, total } = await ctx.run(auditPage(principalOf(request).org_id, page, per_page, filterOf(filter)))
    return { items, total, page, per_page }
  })

  app.get('/v1/audit-log/export', {
    preHandler: requireApiKey(ctx, 'org.read'),
    schema: {
      tags: ['org'], summary: 'Export the audit log as NDJSON, oldest first, with its keyed chain', security,
      description: 'One JSON record per line (`application/x-ndjson`), in log order, with the same filters as the listing: the stored event (`event_id`, `position`, `stream`, `revision`, `type`, `org_id`, `occurred_at`, `metadata` with the actor, and `detail`, its fields, where a secret, a job spec or a bulky payload is replaced by `sha256:` and the SHA-256 of its JSON) and `chain`, the organization chain\'s link made when the event was appended: `key_id`, `prev` (the previous link\'s `mac`; 64 zeros for the first) and `mac`, an HMAC-SHA256 with the operator\'s key. The links are read as stored, never computed again. An operator checks an unfiltered export with `npm run --silent cli -- audit verify FILE` (keys and signed checkpoints; docs/audit.md). 503 `audit_chain_not_kept` where the event store keeps no chain (EventStoreDB).',
      querystring: { type: 'object', additionalProperties: false, properties: auditQuery },
      response: {
        200: { description: 'NDJSON audit records.', content: { 'application/x-ndjson': { schema: { type: 'string' } } } },
        ...errors(401, 403, 422, 503),
      },
    },
  }, async (request, reply) => {
    const orgId = principalOf(request).org_id
    const filter = filterOf(request.query as AuditFilter)
    const run = ctx.run
    // The first batch is read before answering, so a store without a chain answers 503 rather than a broken stream.
    const first = await run(auditRecords(orgId, filter, -1, EXPORT_BATCH))
    async function* lines () {
      for (let batch = first; ;) {
        for (const record of batch) yield `${JSON.stringify(record)}\n`
        if (batch.length < EXPORT_BATCH) return
        batch = await run(auditRecords(orgId, filter, batch[batch.length - 1]!.position, EXPORT_BATCH))
      }
    }
    return reply.header('content-type', 'application/x-ndjson; charset=utf-8').send(Readable.from(lines()))
  })
}
