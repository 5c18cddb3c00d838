import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { Effect, Option } from 'effect'
import { idempotentJobId, submitJob } from '../../commands/jobs.js'
import { jobAdmissionBreaches } from '../../domain/limits.js'
import { CREDIT_WEIGHTS, PLANS, type PlanName } from '../../domain/plans.js'
import { admissionUsage } from '../../projections/usage-queries.js'
import type { Doc } from '../../ports/document-store.js'
import { StateConflict, ValidationFailed } from '../../domain/errors.js'
import { validateJobSpec } from '../../domain/job/spec.js'
import { getJob, listJobs } from '../../projections/job-queries.js'
import { requestedJobDoc } from '../../projections/jobs.js'
import { artifactDownload } from '../../projections/artifact-queries.js'
import { enforce, principalOf, requireApiKey } from '../auth.js'
import type { RouteContext } from '../context.js'
import { jobView } from './job-view.js'
import { errors, security, waitForDoc } from './route-helpers.js'

const isTimeZone = (zone: string) => {
  try { new Intl.DateTimeFormat('en-US', { timeZone: zone }); return true } catch { return false }
}


export const jobRoutes = async (app: FastifyInstance, ctx: RouteContext) => {
  app.post('/v1/jobs', {
    preHandler: requireApiKey(ctx, 'jobs.create'),
    schema: {
      tags: ['jobs'], summary: 'Submit a job', security,
      description: 'Creates a job that fetches one URL. Answers 202 with the queued job; with an `idempotency_token` already used by the organization, answers 200 with the original job and `Idempotent-Replayed: true`. A body that is not JSON answers 400 `malformed_body`; invalid fields answer 422 `validation_failed` listing every failing field. Over a limit (key in `block` mode) answers 429 with `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` and `Retry-After`, and one of the codes `rate_limit_exceeded`, `daily_quota_exceeded`, `plan_limit_concurrent_jobs` (queued plus running jobs of the organization), `key_limit_concurrent_jobs`, `plan_limit_monthly_credits`, `plan_limit_job_type_not_allowed`; a rejected request creates no job and costs nothing. In `observe` mode the request passes and `X-RateLimit-Observed` names the limits it exceeded.',
      body: { $ref: 'JobRequest#' },
      response: { 200: { $ref: 'Job#' }, 202: { $ref: 'Job#' }, ...errors(400, 401, 403, 422, 429) },
    },
  }, async (request, reply) => {
    const principal = principalOf(request)
    const checked = validateJobSpec(request.body, { allowlist: ctx.settings.ssrfAllowlist, isTimeZone })
    if (!checked.ok) throw new ValidationFailed({ errors: checked.errors })
    const spec = checked.spec
    const replay = (doc: Doc) => reply.code(200).header('Idempotent-Replayed', 'true').send(jobView(doc))
    if (spec.idempotency_token !== undefined) {
      const existing = await ctx.run(Effect.option(getJob(principal.org_id, idempotentJobId(principal.org_id, spec.idempotency_token))))
      if (Option.isSome(existing)) return replay(existing.value)
    }
    const weight = CREDIT_WEIGHTS[spec.job_type]
    const submitted = await ctx.admission(principal.org_id, async () => {
      const now = Date.now()
      const today = new Date(now).toISOString().slice(0, 10)
      const usage = await ctx.run(admissionUsage(principal.org_id, principal.key_id, new Date(now)))
      // Counters lag the log a little; this process's own admissions they have not seen yet are added back.
      const unseen = ctx.reservations.pending(principal.org_id, usage.orgPosition)
      const ofKey = unseen.filter((r) => r.keyId === principal.key_id)
      const breaches = jobAdmissionBreaches(PLANS[principal.plan as PlanName], principal.limits, {
        jobsToday: usage.jobsToday + ofKey.filter((r) => r.day === today).length,
        activeJobsOrg: usage.activeJobsOrg + unseen.length,
        activeJobsKey: usage.activeJobsKey + ofKey.length,
        creditsCommitted: usage.creditsUsed + usage.creditsReserved + unseen.reduce((sum, r) => sum + r.weight, 0),
      }, weight, spec.job_type, now)
      enforce(request, reply, principal, breaches, now)
      const job = await ctx.run(submitJob({
        org_id: principal.org_id, api_key_id: principal.key_id, spec,
        metadata: { correlation_id: randomUUID(), causation_id: null, actor: `api_key:${principal.key_id}` },
      }))
      if (job.created) ctx.reservations.add(principal.org_id, { position: job.position, keyId: principal.key_id, weight, day: today })
      return job
    })
    // Answered once the job is readable, so a GET right after this answer finds it.
    const current = await ctx.run(Effect.option(waitForDoc(getJob(principal.org_id, submitted.job_id))))
    const result = { ...submitted, current }
    if (result.requested) return reply.code(202).send(jobView(requestedJobDoc(result.requested)))
    // Another request with the same token created the job a moment ago.
    if (Option.isSome(result.current)) return replay(result.current.value)
    throw new StateConflict({ code: 'idempotent_request_in_progress', message: 'a request with this idempotency_token is being processed; retry shortly' })
  })

  app.get('/v1/jobs', {
    preHandler: requireApiKey(ctx, 'jobs.read'),
    schema: {
      tags: ['jobs'], summary: 'List jobs', security,
      description: 'Newest first. Filter by `tag`, `status` and `job_type`.',
      querystring: {
        type: 'object', additionalProperties: false,
        properties: {
          tag: { type: 'string', maxLength: 64 },
          status: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed'] },
          job_type: { type: 'string', enum: ['light', 'standard', 'stealth'] },
          page: { type: 'integer', minimum: 1, default: 1 },
          per_page: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        },
      },
      response: {
        200: {
          type: 'object',
          properties: {
            items: { type: 'array', items: { $ref: 'Job#' } },
            total: { type: 'integer' }, page: { type: 'integer' }, per_page: { type: 'integer' }, page_count: { type: 'integer' },
          },
        },
        ...errors(401, 403, 422),
      },
    },
  }, async (request) => {
    const principal = principalOf(request)
    const q = request.query as { tag?: string; status?: string; job_type?: string; page: number; per_page: number }
    const { items, total } = await ctx.run(listJobs(principal.org_id, q))
    return { items: items.map(jobView), total, page: q.page, per_page: q.per_page, page_count: Math.ceil(total / q.per_page) }
  })

  const jobIdParams = { type: 'object', required: ['job_id'], properties: { job_id: { type: 'string', maxLength: 64 } } } as const

  app.get('/v1/jobs/:job_id', {
    preHandler: requireApiKey(ctx, 'jobs.read'),
    schema: { tags: ['jobs'], summary: 'Get a job', security, params: jobIdParams, response: { 200: { $ref: 'Job#' }, ...errors(401, 403, 404) } },
  }, async (request) => {
    const { job_id } = request.params as { job_id: string }
    return jobView(await ctx.run(getJob(principalOf(request).org_id, job_id)))
  })

  app.get('/v1/jobs/:job_id/result', {
    preHandler: requireApiKey(ctx, 'jobs.read'),
    schema: {
      tags: ['jobs'], summary: 'Get the result of a finished job', security, params: jobIdParams,
      description: 'Answers 409 `result_not_ready` while the job is queued or running; then the job record with its manifest and artifacts (download each through the artifact route).',
      response: { 200: { $ref: 'Job#' }, ...errors(401, 403, 404, 409) },
    },
  }, async (request) => {
    const { job_id } = request.params as { job_id: string }
    const doc = await ctx.run(getJob(principalOf(request).org_id, job_id))
    if (doc.status === 'queued' || doc.status === 'running') {
      throw new StateConflict({ code: 'result_not_ready', message: `job ${job_id} is ${doc.status}; retry shortly` })
    }
    return jobView(doc)
  })

  app.get('/v1/jobs/:job_id/artifacts/:artifact_id', {
    preHandler: requireApiKey(ctx, 'jobs.read'),
    schema: {
      tags: ['jobs'], summary: 'Get a short-lived download URL for an artifact', security,
      description: 'Artifacts are never public: this answers a presigned URL that expires after a few minutes (ARTIFACT_URL_TTL_SECONDS).',
      params: { type: 'object', required: ['job_id', 'artifact_id'], properties: { job_id: { type: 'string', maxLength: 64 }, artifact_id: { type: 'string', maxLength: 64 } } },
      response: {
        200: {
          type: 'object',
          properties: {
            artifact_id: { type: 'string' }, artifact_type: { type: 'string' }, content_type: { type: 'string' },
            size: { type: 'integer' }, sha256: { type: 'string' }, url: { type: 'string' }, expires_at: { type: 'string', format: 'date-time' },
          },
        },
        ...errors(401, 403, 404),
      },
    },
  }, async (request) => {
    const { job_id, artifact_id } = request.params as { job_id: string; artifact_id: string }
    return ctx.run(artifactDownload(principalOf(request).org_id, job_id, artifact_id, ctx.settings.artifactUrlTtlSeconds))
  })
}
