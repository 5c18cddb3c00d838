import { Effect } from 'effect'
import type { FastifyInstance } from 'fastify'
import { currentTime } from '../../commands/clock.js'
import { API_ORIGIN } from '../../domain/job/origin.js'
import { submitAdmittedJob, submitAdmittedJobNow, type SubmitAdmittedJob } from '../../commands/admit-job.js'
import { requestJobDeletion } from '../../commands/purge.js'
import { awaitJobEndWithin } from '../../commands/job-ends.js'
import { coverage, isHeld } from '../../domain/retention/coverage.js'
import { LIFECYCLE_JOBS } from '../../projections/lifecycle.js'
import { activeHolds } from '../../projections/retention-queries.js'
import type { PlanName } from '../../domain/plans.js'
import { MissingFields, StateConflict, ValidationFailed } from '../../domain/errors.js'
import { validateJobSpec } from '../../domain/job/spec.js'
import { INLINE_FORMAT_MAX_BYTES } from '../../domain/job/inline-formats.js'
import { awaitEndedJob, awaitEndedJobNow, getJob, getJobNow, isRunning, listJobs } from '../../projections/job-queries.js'
import { STREAMS } from '../../domain/streams.js'
import { JOBS, jobsProjection, requestedJobDoc } from '../../projections/jobs.js'
import { readableOnceStarted, readModelsCommitHere, waitForPosition, waitForPositionNow } from '../../projections/read-your-writes.js'
import { artifactDownload } from '../../projections/artifact-queries.js'
import { inlineFormats } from '../../projections/format-queries.js'
import { observe, principalOf, requireApiKey } from '../auth.js'
import type { RouteContext } from '../context.js'
import { requestMetadata } from '../event-metadata.js'
import { jobView } from './job-view.js'
import { errors, pagingProperties, security } from './route-helpers.js'

const isTimeZone = (zone: string) => {
  try { new Intl.DateTimeFormat('en-US', { timeZone: zone }); return true } catch { return false }
}


export const jobRoutes = async (app: FastifyInstance, ctx: RouteContext) => {
  app.post('/v1/jobs', {
    preHandler: requireApiKey(ctx, 'jobs.create'),
    schema: {
      tags: ['jobs'], summary: 'Submit a job', security,
      description: 'Creates a job that fetches one URL. Answers 202 with the queued job; with an `idempotency_token` already used by the organization, answers 200 with the original job and `Idempotent-Replayed: true`. A body that is not JSON answers 400 `malformed_body`; a body without `job_type` or `target_url` answers 400 `missing_job_type` / `missing_target_url`; invalid fields answer 422 with the first failing field\'s code as `error.code` (e.g. `invalid_wait_until`, `unsafe_target_url`; for extraction hooks `regex_unsupported` for a regex RE2 cannot run: backreferences, lookahead, and `selector_too_complex` for a CSS selector over the caps: `:has()` inside `:has()`, more than 16 combinators or 32 alternatives, docs/limits.md) and every failing field in `details`. Over a limit (key in `block` mode) answers 429 with `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` and `Retry-After`, and one of the codes `rate_limit_exceeded`, `daily_quota_exceeded`, `plan_limit_concurrent_jobs` (queued plus running jobs of the organization), `key_limit_concurrent_jobs`, `plan_limit_monthly_credits`, `plan_limit_job_type_not_allowed`; a rejected request creates no job and costs nothing. In `observe` mode the request passes and `X-RateLimit-Observed` names the limits it exceeded.',
      body: { $ref: 'JobRequest#' },
      response: { 200: { $ref: 'Job#' }, 202: { $ref: 'Job#' }, ...errors(400, 401, 403, 422, 429) },
    },
  }, async (request, reply) => {
    const principal = principalOf(request)
    const checked = validateJobSpec(request.body, { allowlist: ctx.settings.ssrfAllowlist, isTimeZone })
    if (!checked.ok) throw checked.missing.length > 0 ? new MissingFields({ errors: checked.missing }) : new ValidationFailed({ errors: checked.errors })
    const metadata = requestMetadata(request, `api_key:${principal.key_id}`)
    const submission = (now: Date): SubmitAdmittedJob => ({
      org_id: principal.org_id, plan: principal.plan as PlanName,
      key: { key_id: principal.key_id, limits: principal.limits }, enforcement: principal.limits.enforcement_mode,
      spec: checked.spec, origin: API_ORIGIN, allowlist: ctx.settings.ssrfAllowlist, now, metadata,
    })
    const services = ctx.services
    // Without an effect run where the stores answer at once; the effects otherwise.
    const admitted = services && submitAdmittedJobNow(services, submission(services.clock.now()))
    const admission = admitted ?? await ctx.run(Effect.flatMap(currentTime, (now) => submitAdmittedJob(submission(now))))
    // Answered once the job is readable, so a GET right after this answer finds it.
    const current = await ((services && waitForPositionNow(services.docs, JOBS, admission.job_id, admission.position))
      ?? ctx.run(readableOnceStarted(jobsProjection, JOBS, admission.job_id, STREAMS.job.stream(admission.job_id), admission.position)))
    if (admission._tag === 'Created') {
      observe(request, reply, principal, admission.observed)
      return reply.code(202).send(jobView(requestedJobDoc(admission.requested)))
    }
    if (current) return reply.code(200).header('Idempotent-Replayed', 'true').send(jobView(current))
    // Another request with the same token created the job a moment ago and it is not readable yet.
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
          ...pagingProperties(20),
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

  app.delete('/v1/jobs/:job_id', {
    preHandler: requireApiKey(ctx, 'jobs.delete'),
    schema: {
      tags: ['jobs'], summary: 'Request the deletion of a finished job', security, params: jobIdParams,
      description: 'Answers 202: the purger removes the job and its artifacts at its next sweep (PURGE_INTERVAL_SECONDS), as it does past retention (see the retention policy): the job leaves every listing and get, its artifact URLs answer 404, its blobs are deleted, and the purge is recorded in the audit log. Asking again answers 202 and changes nothing. 404 `job_not_found` (also another organization\'s job); 409 `job_not_finished` while queued or running; 409 `legal_hold_active` while a legal hold covers the organization, the job or one of its artifacts.',
      response: {
        202: { type: 'object', properties: { job_id: { type: 'string' }, deletion_requested: { type: 'boolean' } } },
        ...errors(401, 403, 404, 409),
      },
    },
  }, async (request, reply) => {
    const principal = principalOf(request)
    const { job_id } = request.params as { job_id: string }
    const job = await ctx.run(getJob(principal.org_id, job_id))
    const held = coverage(await ctx.run(activeHolds(principal.org_id)), { job_id, artifact_ids: job.artifacts.map((a) => a.artifact_id) })
    if (isHeld(held)) throw new StateConflict({ code: 'legal_hold_active', message: `a legal hold covers job ${job_id}; it cannot be deleted until the hold is released` })
    const requested = await ctx.run(requestJobDeletion({ org_id: principal.org_id, job_id, metadata: requestMetadata(request, `api_key:${principal.key_id}`) }))
    if (requested.events.length > 0) await ctx.run(waitForPosition(LIFECYCLE_JOBS, job_id, requested.position))
    return reply.code(202).send({ job_id, deletion_requested: true })
  })

  app.get('/v1/jobs/:job_id/result', {
    preHandler: requireApiKey(ctx, 'jobs.read'),
    schema: {
      tags: ['jobs'], summary: 'Get the result of a finished job', security, params: jobIdParams,
      description: 'The job record with its manifest and artifacts (download each through the artifact route) once the job has ended. A recipe run whose output is over 256 KB has `output: null` and a short-lived signed `result_url` instead. A job submitted with `formats` has them under `formats`, keyed by format: markdown, html, rawHtml and text as strings, links, metadata and json as JSON values, screenshot, screenshot@fullPage and pdf as a download link (`{artifact_id, artifact_type, content_type, size, sha256, url, expires_at}`), null when the job did not make the artifact (it failed, or markdown of a response that is not HTML on light). Text and JSON are inline up to ' + INLINE_FORMAT_MAX_BYTES + ' bytes per format: past it `formats_truncated` names the format with its `artifact_id` and full `size` (the text cut at a character boundary, a JSON value null); the artifact route serves all of it. While it is queued or running, answers 409 `result_not_ready` at once, or with `wait=SECONDS` (at most RESULT_WAIT_MAX_SECONDS, default 60) holds the request until the job ends and then answers 200, or answers 409 `result_not_ready` when the wait runs out (a long poll: no client-side polling needed). `wait` outside 0..RESULT_WAIT_MAX_SECONDS answers 422 `invalid_wait`.',
      querystring: {
        type: 'object', additionalProperties: false,
        properties: { wait: { type: 'integer', minimum: 0, maximum: ctx.settings.resultWaitMaxSeconds, default: 0, description: 'Seconds to wait for the job to end (long poll).' } },
      },
      response: { 200: { $ref: 'Job#' }, ...errors(401, 403, 404, 409, 422) },
    },
  }, async (request) => {
    const { job_id } = request.params as { job_id: string }
    const { wait } = request.query as { wait: number }
    const orgId = principalOf(request).org_id
    const services = ctx.services
    const known = services && getJobNow(services.docs, orgId, job_id)
    // Without an effect run where the store reads at once and this process projects the job's end.
    const waited = known && (!isRunning(known) || wait === 0 ? known : awaitEndedJobNow(services.docs, services.clock, job_id, wait, known))
    const doc = waited ? ((await waited) ?? known) : await ctx.run(Effect.gen(function* () {
      const doc = yield* getJob(orgId, job_id)
      if (!isRunning(doc) || wait === 0) return doc
      if (yield* readModelsCommitHere) {
        // The job's read model is updated in this process, in the same turn as its end is projected: wait on it.
        return (yield* awaitEndedJob(job_id, wait, doc)) ?? doc
      }
      const end = yield* awaitJobEndWithin(job_id, wait)
      // The job's stream says it ended; the answer is the read model once it has caught up with that end.
      return end === null ? doc : (yield* waitForPosition(JOBS, job_id, end.position)) ?? doc
    }))
    if (isRunning(doc)) {
      throw new StateConflict({ code: 'result_not_ready', message: `job ${job_id} is ${doc.status}; ${wait > 0 ? `it did not end within ${wait} s` : 'retry shortly, or wait with ?wait=SECONDS'}` })
    }
    const formats = doc.formats ? await ctx.run(inlineFormats(doc, ctx.settings.artifactUrlTtlSeconds)) : {}
    const large = doc.recipe_run?.output_artifact_id
    if (!large) return { ...jobView(doc), ...formats }
    const signed = await ctx.run(artifactDownload(orgId, job_id, large, ctx.settings.artifactUrlTtlSeconds))
    return { ...jobView(doc), result_url: signed.url, result_url_expires_at: signed.expires_at }
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
