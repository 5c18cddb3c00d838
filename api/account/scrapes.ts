import type { FastifyInstance, FastifyReply, preHandlerAsyncHookHandler } from 'fastify'
import { Effect } from 'effect'
import { awaitScrapeOutcome, requestScrape } from '../../commands/scrapes.js'
import { ValidationFailed } from '../../domain/errors.js'
import type { PlanName } from '../../domain/plans.js'
import { GATEWAY_ERROR_CODE } from '../../domain/scrape/outcome.js'
import { scrapeWaitSeconds, validateScrapeRequest } from '../../domain/scrape/request.js'
import { SCRAPE_BACKENDS } from '../../domain/scrape/events.js'
import { getOrg } from '../../projections/org-queries.js'
import { waitForPosition } from '../../projections/read-your-writes.js'
import { getScrape, listScrapes, screenshotUrl, SCRAPE_SORTS, type ScrapeListQuery } from '../../projections/scrape-queries.js'
import { SCRAPES, type ScrapeDoc } from '../../projections/scrapes.js'
import { requestMetadata } from '../event-metadata.js'
import type { AccountContext } from './context.js'
import { envelopeOf, failedEnvelope, timeoutEnvelope, type ScrapeEnvelope } from './scrape-envelope.js'
import { accountPaging, pageOf, ScrapeDetailBody, ScrapeEnvelopeBody, ScrapeItemBody, ScrapeRequestBody } from './scrape-schemas.js'
import { accountSecurity, EmailNotVerified, MalformedBody, NotAuthenticated, SEARCH_TEXT_MAX_LENGTH, ValidationErrorBody } from './schemas.js'
import { userOf, type Sessions } from './session.js'

const isTimeZone = (zone: string) => {
  try { new Intl.DateTimeFormat('en-US', { timeZone: zone }); return true } catch { return false }
}

const NotFoundBody = { type: 'object', required: ['detail'], properties: { detail: { type: 'string', enum: ['scrape_not_found'] } } } as const
const RateLimitedBody = {
  type: 'object', required: ['detail'],
  description: '`scrape_rate_limited`: more than SCRAPES_PER_MINUTE (default 60) /scrapes requests of one user within a minute; '
    + '`plan_limit_concurrent_jobs`, `plan_limit_monthly_credits`, `plan_limit_job_type_not_allowed`: the organization\'s plan (nothing was created). '
    + 'Headers: Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset.',
  properties: { detail: { type: 'string' } },
} as const

/** A job's end answers 200 or 422 (502 for the pipeline's own failures); 504 only comes from the expired wait. */
const statusOfEnd = (envelope: ScrapeEnvelope) => envelope.ok ? 200 : envelope.errorCode === GATEWAY_ERROR_CODE ? 502 : 422

const itemOf = (doc: ScrapeDoc, screenshot: string | null) => ({
  id: doc.scrape_id, url: doc.url, backend: doc.backend, status: doc.status, statusCode: doc.status_code,
  saveHtml: doc.save_html, takeScreenshot: doc.take_screenshot, createdAt: doc.created_at, completedAt: doc.completed_at,
  screenshotUrl: screenshot, errorCode: doc.error_code,
})

/** The synchronous scrape (SPEC 2.4, 3.2) and its history, for signed-in users; `scrapeLimit` is the per-user request rate. */
export const scrapeRoutes = async (app: FastifyInstance, account: AccountContext, sessions: Sessions, scrapeLimit: preHandlerAsyncHookHandler) => {
  const { artifactUrlTtlSeconds, ssrfAllowlist } = account.settings
  const guarded = [sessions.requireUser, scrapeLimit]
  // An unverified user is refused before the request counts against their rate.
  const guardedWork = [sessions.requireVerifiedUser, scrapeLimit]

  app.post('/scrapes', {
    preHandler: guardedWork,
    schema: {
      tags: ['account'], summary: 'Scrape a page and answer its result', security: accountSecurity,
      description: 'For users with a verified e-mail (403 `email_not_verified` otherwise). Submits a job of the backend\'s tier, billed to the user\'s organization like a v1 job (its plan\'s concurrency and credits apply), '
        + 'and waits for its result at most `timeout` + 15 s. 200: `ok: true`. 422: the scrape failed (`ok: false`, `status: failed`, the job\'s '
        + 'failure reason as `errorCode`), or the body is invalid (`{detail: validation_error, errors}`; codes missing_url, invalid_url, unsafe_url, '
        + 'missing_backend, invalid_backend, invalid_include_body, invalid_saveHtml, invalid_take_screenshot, invalid_takeScreenshot, conflicting_alias, '
        + 'screenshot_needs_browser, invalid_timeout, invalid_wait_until, unknown_field). 504: no result in time (`errorCode: timeout`); the job '
        + 'goes on and its late result is recorded on the scrape (GET /scrapes/{id}). 502: the pipeline failed (`errorCode: gateway_error`: the '
        + 'engine or browser was unavailable or crashed, or the result lost its body). 429: the per-user request rate or the plan\'s limits.',
      body: ScrapeRequestBody,
      response: {
        200: ScrapeEnvelopeBody, 400: MalformedBody, 401: NotAuthenticated, 403: EmailNotVerified,
        422: { oneOf: [ScrapeEnvelopeBody, ValidationErrorBody] }, 429: RateLimitedBody, 502: ScrapeEnvelopeBody, 504: ScrapeEnvelopeBody,
      },
    },
  }, async (request, reply: FastifyReply) => {
    const user = userOf(request)
    const checked = validateScrapeRequest(request.body, { allowlist: ssrfAllowlist, isTimeZone })
    if (!checked.ok) throw new ValidationFailed({ errors: checked.errors })
    const org = await account.run(getOrg(user.org_id))
    const metadata = requestMetadata(request, `user:${user.user_id}`)
    const scrape = await account.run(requestScrape({
      user_id: user.user_id, org_id: user.org_id, plan: org.plan as PlanName, options: checked.options, spec: checked.spec,
      allowlist: ssrfAllowlist, metadata,
    }))
    // From here on the scrape exists: a failure of our own stores is the pipeline's (502), never a lost request.
    const waited = scrapeWaitSeconds(checked.options)
    const answer = Effect.gen(function* () {
      const outcome = yield* awaitScrapeOutcome(scrape.scrape_id, user.org_id, waited, metadata)
      if (outcome._tag === 'WaitExpired') return { status: 504, envelope: timeoutEnvelope(scrape.scrape_id, waited), position: outcome.position }
      const envelope = yield* envelopeOf(scrape.scrape_id, outcome.end, checked.options)
      return { status: statusOfEnd(envelope), envelope, position: outcome.position }
    })
    const answered = await account.run(answer).catch((error: unknown) => {
      request.log.error({ err: error }, 'scrape pipeline failed')
      return { status: 502, envelope: failedEnvelope(scrape.scrape_id, GATEWAY_ERROR_CODE, 'the scraping pipeline failed; retry later'), position: 0 }
    })
    // So that GET /scrapes right after this answer shows the same outcome.
    await account.run(waitForPosition(SCRAPES, scrape.scrape_id, Math.max(scrape.position, answered.position))).catch(() => null)
    return reply.code(answered.status).send(answered.envelope)
  })

  app.get('/scrapes', {
    preHandler: guarded,
    schema: {
      tags: ['account'], summary: "List the scrapes of the user's organization", security: accountSecurity,
      description: 'Newest first by default. `q` matches a substring of the URL (case-insensitive). A page past the end answers no items.',
      querystring: {
        type: 'object', additionalProperties: false,
        properties: {
          status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
          backend: { type: 'string', enum: SCRAPE_BACKENDS },
          q: { type: 'string', maxLength: SEARCH_TEXT_MAX_LENGTH },
          sort: { type: 'string', enum: Object.keys(SCRAPE_SORTS), default: 'createdAt' },
          ...accountPaging(20),
        },
      },
      response: { 200: pageOf(ScrapeItemBody), 401: NotAuthenticated, 422: ValidationErrorBody, 429: RateLimitedBody },
    },
  }, async (request) => {
    const user = userOf(request)
    const query = request.query as ScrapeListQuery
    const { items, total } = await account.run(listScrapes(user.org_id, query))
    const listed = await account.run(Effect.forEach(items, (doc) => Effect.map(screenshotUrl(doc, artifactUrlTtlSeconds), (url) => itemOf(doc, url))))
    return { items: listed, total, page: query.page, perPage: query.perPage, pageCount: Math.ceil(total / query.perPage) }
  })

  app.get('/scrapes/:id', {
    preHandler: guarded,
    schema: {
      tags: ['account'], summary: 'Get one scrape', security: accountSecurity,
      description: "Every user of the organization sees its scrapes; another organization's answers 404 `scrape_not_found`, like a missing one. HTML, screenshot and headers are only in the POST answer.",
      params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } },
      response: { 200: ScrapeDetailBody, 401: NotAuthenticated, 404: NotFoundBody, 422: ValidationErrorBody, 429: RateLimitedBody },
    },
  }, async (request) => {
    const { id } = request.params as { id: string }
    const doc = await account.run(getScrape(userOf(request).org_id, id))
    return { ...itemOf(doc, await account.run(screenshotUrl(doc, artifactUrlTtlSeconds))), errorMessage: doc.error_message }
  })
}
