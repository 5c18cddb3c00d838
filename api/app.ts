import Fastify, { LogController, type FastifyInstance } from 'fastify'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import Ajv from 'ajv'
import type { AccountContext } from './account/context.js'
import { accountRoutes } from './account/index.js'
import { ACCOUNT_OPENAPI_TAG, ACCOUNT_SECURITY_SCHEMES } from './account/openapi.js'
import type { ApiContext, RouteContext } from './context.js'
import { makeRateWindow } from './rate-window.js'
import { refuseFraming } from './framing.js'
import { declareLinks } from './openapi-links.js'
import { dashboardRoutes } from './dashboard.js'
import { downloadRoutes } from './downloads.js'
import { declareCommonResponses } from './declared-responses.js'
import { ErrorBodySchema, sendClientError, sendError, sendFrameworkError } from './errors.js'
import { makeMethodIndex } from './method-not-allowed.js'
import { observeRequests, type ApiMetrics } from './metrics.js'
import { capConnectionsPerAddress, DEFAULT_SERVER_LIMITS, serverTimeoutOptions, type ServerLimits } from './server-limits.js'
import { correlationIdOf } from './event-metadata.js'
import { JobRequestSchema } from './v1/job-request-schema.js'
import { JobViewSchema } from './v1/job-view.js'
import { jobRoutes } from './v1/jobs.js'
import { monitorChangeRoutes } from './v1/monitor-changes.js'
import { MonitorRequestSchema, MonitorUpdateSchema } from './v1/monitor-request-schema.js'
import { MonitorRunSchema, MonitorViewSchema } from './v1/monitor-view.js'
import { monitorRoutes } from './v1/monitors.js'
import { keyRoutes } from './v1/keys.js'
import { orgRoutes } from './v1/org.js'
import { webhookRoutes } from './v1/webhooks.js'
import { recipeRoutes } from './v1/recipes.js'
import { retentionRoutes } from './v1/retention.js'
import { lazySerializers, lazyValidator } from './lazy-compilers.js'

export interface AppOptions {
  readonly logger?: boolean | object
  /** Behind a reverse proxy: take the client address (IP allowlists, login limits) from X-Forwarded-For. */
  readonly trustProxy?: boolean | string
  /** The account API (register, login, tokens, ...) is served when its context is given. */
  readonly account?: AccountContext
  /** Timeouts for slow clients and the per-address connection cap; DEFAULT_SERVER_LIMITS when absent. */
  readonly serverLimits?: ServerLimits
  /** Request counts and latencies are reported here, and `/metrics` served when it has an exposition. */
  readonly metrics?: ApiMetrics
  /** The built dashboard (web/dist), served at /app when given. */
  readonly dashboardDir?: string
}

/**
 * Bodies are validated by the domain (which answers 422 with a code per field), never by the route schemas:
 * those document the body and must not coerce, default or strip anything in it. Query strings and params are
 * checked by ajv with type coercion.
 */
const queryAjv = new Ajv.default({
  coerceTypes: 'array', useDefaults: true, removeAdditional: false, allErrors: true, strict: false,
  // Declared for OpenAPI; the route checks the value itself and answers its own field code (invalid_from, ...).
  formats: { 'date-time': true },
})

export const buildApp = async (ctx: ApiContext, options: AppOptions = {}): Promise<FastifyInstance> => {
  const limits = options.serverLimits ?? DEFAULT_SERVER_LIMITS
  const app = Fastify({
    // Query strings carry short-lived credentials (signed download URLs, verification tokens): never log them.
    logger: options.logger ? { ...(typeof options.logger === 'object' ? options.logger : {}), serializers: { req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: req.url.split('?')[0], ip: req.ip }) } } : false,
    trustProxy: options.trustProxy ?? false,
    bodyLimit: 2 * 1024 * 1024,
    ajv: { customOptions: { strict: false } },
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
    return503OnClosing: true,
    // One correlation-id source: the request id doubles as the correlation id of the events the request causes.
    requestIdHeader: false,
    genReqId: correlationIdOf,
    // Each request's log lines carry it under the same name as the events' metadata, so logs and events join.
    logController: new LogController({ requestIdLogLabel: 'correlation_id' }),
    ...serverTimeoutOptions(limits),
    clientErrorHandler: sendClientError,
    frameworkErrors: sendFrameworkError,
    // The router never refuses a path parameter for its length: each route's parameter schema does (422, in the route
    // family's error body), and Node's header limit (431) bounds the whole request line long before this would.
    routerOptions: { maxParamLength: 65_536 },
  })
  capConnectionsPerAddress(app.server, limits.maxConnectionsPerAddress)
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'body') return () => true
    return lazyValidator(() => queryAjv.compile(schema))
  })
  const methods = makeMethodIndex()
  // A request no route takes is answered 404 or 405 even when reading it failed first (QUERY without a Content-Type
  // is refused by the body parser before the not-found handler would run).
  app.setErrorHandler((error, request, reply) => request.is404 ? methods.notFound(request, reply) : sendError(error, request, reply))
  app.addHook('onRoute', (route) => {
    declareCommonResponses(route)
    declareLinks(route)
    methods.add(route)
  })
  app.setNotFoundHandler(methods.notFound)
  refuseFraming(app)
  if (options.metrics) observeRequests(app, options.metrics)

  app.addSchema(ErrorBodySchema)
  app.addSchema(JobRequestSchema)
  app.addSchema(JobViewSchema)
  for (const schema of [MonitorRequestSchema, MonitorUpdateSchema, MonitorViewSchema, MonitorRunSchema]) app.addSchema(schema)

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Scrapeworks API',
        version: '1.0.0',
        description: 'Self-hostable web scraping service. The v1 API authenticates with `X-API-Key`. Every v1 error answers `{error: {code, message, details?}}` (schema ErrorBody): 400 `malformed_body` for a body that is not JSON (and `missing_<field>` for an absent required field), 401 for a missing, invalid, revoked or expired key, 403 `missing_scope`, 404 `<resource>_not_found` (also for another organization\'s resources), 409 for state conflicts such as `result_not_ready`, 413 `payload_too_large`, 422 with the first failing field\'s code as `error.code` and one `details` entry per failing field, 429 with `X-RateLimit-*` and `Retry-After` headers, 503 `service_unavailable`. 403 is also `ip_not_allowed` (organization or key IP allowlist) and `key_exceeds_creator` (key management, with `details`). Every key-authenticated call can answer 401, 403 and 429 (the key\'s requests per minute count every v1 call). Before a route runs: 404 `route_not_found`, 405 `method_not_allowed` with an `Allow` header for a known path asked with another method, 408 `request_timeout` for a client too slow to send its headers or body (the connection is then closed; see HTTP_HEADERS_TIMEOUT_MS and HTTP_REQUEST_TIMEOUT_MS), 431 `headers_too_large` (request line and headers over 16 KiB). A path parameter longer than its schema allows answers 422 (`invalid_<parameter>`).',
      },
      servers: [{ url: ctx.settings.publicBaseUrl }],
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' }, ...ACCOUNT_SECURITY_SCHEMES } },
      tags: [ACCOUNT_OPENAPI_TAG],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (json.$id as string) ?? `def-${i}` },
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
  const unavailableTiers = ctx.settings.unavailableTiers ?? []
  app.get('/healthz', {
    schema: {
      tags: ['ops'], summary: 'Liveness',
      description: '`unavailable_tiers` names the engines this deployment cannot run (the light tier when its HTTP client is not built and Go is missing); their jobs fail with `tier_unavailable`.',
      response: { 200: { type: 'object', properties: { status: { type: 'string' }, unavailable_tiers: { type: 'array', items: { type: 'string' } } } } },
    },
  }, async () => ({ status: 'ok', unavailable_tiers: unavailableTiers }))

  const routeCtx: RouteContext = { ...ctx, rateWindow: makeRateWindow() }
  await app.register(async (scope) => jobRoutes(scope, routeCtx))
  await app.register(async (scope) => monitorChangeRoutes(scope, routeCtx))
  await app.register(async (scope) => keyRoutes(scope, routeCtx))
  await app.register(async (scope) => orgRoutes(scope, routeCtx))
  await app.register(async (scope) => webhookRoutes(scope, routeCtx))
  await app.register(async (scope) => recipeRoutes(scope, routeCtx))
  await app.register(async (scope) => monitorRoutes(scope, routeCtx))
  await app.register(async (scope) => retentionRoutes(scope, routeCtx))
  await app.register(async (scope) => downloadRoutes(scope, ctx))
  const account = options.account
  if (account) await app.register(async (scope) => accountRoutes(scope, account, ctx.clock))
  const dashboardDir = options.dashboardDir
  if (dashboardDir) await app.register(async (scope) => dashboardRoutes(scope, dashboardDir))
  return app
}
