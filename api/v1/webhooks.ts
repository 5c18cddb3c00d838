import type { FastifyInstance, FastifyRequest } from 'fastify'
import { currentTime } from '../../commands/clock.js'
import {
  createWebhookEndpoint, deleteWebhookEndpoint, replayWebhookDelivery, requestWebhookPing, rotateWebhookSecret, updateWebhookEndpoint,
} from '../../commands/webhooks.js'
import { MissingFields, ValidationFailed } from '../../domain/errors.js'
import { MAX_DESCRIPTION_LENGTH, MAX_WEBHOOK_URL_LENGTH, validateEndpointChanges, validateEndpointRequest, type Checked } from '../../domain/webhook/endpoint-request.js'
import { CLOSED_CIRCUIT, CircuitView, circuitView } from '../../domain/webhook/circuit.js'
import { openApiSchemaOf } from '../schema-of.js'
import { MAX_WEBHOOK_ENDPOINTS_PER_ORG } from '../../domain/webhook/endpoint-quota.js'
import { SUBSCRIBABLE_KINDS } from '../../domain/webhook/kinds.js'
import { waitForPosition } from '../../projections/read-your-writes.js'
import { getWebhookDelivery, getWebhookEndpoint, listWebhookDeliveries, listWebhookEndpoints } from '../../projections/webhook-queries.js'
import { WEBHOOK_DELIVERIES, WEBHOOK_ENDPOINTS, type WebhookDeliveryDoc, type WebhookEndpointDoc } from '../../projections/webhooks.js'
import { principalOf, requireApiKey } from '../auth.js'
import type { RouteContext } from '../context.js'
import { requestMetadata } from '../event-metadata.js'
import { errors, pagingProperties, security } from './route-helpers.js'

const endpointView = (doc: WebhookEndpointDoc, now: Date) => ({
  endpoint_id: doc.endpoint_id, url: doc.url, enabled_events: doc.enabled_events, description: doc.description, enabled: doc.enabled,
  disabled_reason: doc.disabled_reason, disabled_message: doc.disabled_message, secret_rotated_at: doc.secret_rotated_at,
  circuit: circuitView(doc.circuit ?? CLOSED_CIRCUIT, now), created_at: doc.created_at, updated_at: doc.updated_at,
})

const deliveryView = (doc: WebhookDeliveryDoc) => ({
  delivery_id: doc.delivery_id, endpoint_id: doc.endpoint_id, event_id: doc.event_id, type: doc.type, status: doc.status,
  next_attempt_at: doc.next_attempt_at, created_at: doc.created_at, attempts: doc.attempts,
})

const KINDS = { type: 'string', enum: SUBSCRIBABLE_KINDS } as const

const EndpointSchema = {
  type: 'object',
  properties: {
    endpoint_id: { type: 'string' }, url: { type: 'string' }, enabled_events: { type: 'array', items: KINDS }, description: { type: ['string', 'null'] },
    enabled: { type: 'boolean' },
    disabled_reason: { type: ['string', 'null'], enum: ['gone', 'failing', null], description: '`gone`: the receiver answered 410; `failing`: every delivery failed for the whole retry window (3 days). Null unless the service disabled the endpoint.' },
    disabled_message: { type: ['string', 'null'] }, secret_rotated_at: { type: ['string', 'null'] },
    circuit: openApiSchemaOf(CircuitView),
    created_at: { type: 'string' }, updated_at: { type: 'string' },
  },
} as const

const WithSecretSchema = {
  ...EndpointSchema,
  properties: { ...EndpointSchema.properties, secret: { type: 'string', description: 'The signing secret (`whsec_` + base64 of 32 bytes), shown in this answer only.' } },
} as const

const AttemptSchema = {
  type: 'object',
  properties: {
    attempt: { type: 'integer' }, attempted_at: { type: 'string' }, status_code: { type: ['integer', 'null'] }, latency_ms: { type: 'integer' },
    response_excerpt: { type: 'string', description: 'The first kilobyte of the answer.' }, error: { type: ['string', 'null'] },
    outcome: { type: 'string', enum: ['succeeded', 'retrying', 'exhausted', 'gone'] },
  },
} as const

const DeliverySchema = {
  type: 'object',
  properties: {
    delivery_id: { type: 'string' }, endpoint_id: { type: 'string' }, event_id: { type: 'string' }, type: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed', 'cancelled'] }, next_attempt_at: { type: ['string', 'null'] }, created_at: { type: 'string' },
    attempts: { type: 'array', items: AttemptSchema },
  },
} as const

const ID = { type: 'string', maxLength: 64 } as const
const endpointParams = { type: 'object', properties: { endpoint_id: ID } } as const
const deliveryParams = { type: 'object', properties: { endpoint_id: ID, delivery_id: ID } } as const

const BODY_PROPERTIES = {
  url: { type: 'string', maxLength: MAX_WEBHOOK_URL_LENGTH, description: 'http or https; must pass the SSRF rules of job targets (public addresses only, or SSRF_ALLOWLIST).' },
  enabled_events: { type: 'array', minItems: 1, items: KINDS },
  description: { type: ['string', 'null'], minLength: 1, maxLength: MAX_DESCRIPTION_LENGTH },
} as const

const checked = <T>(result: Checked<T>): T => {
  if (result.ok) return result.value
  throw result.missing.length > 0 ? new MissingFields({ errors: result.missing }) : new ValidationFailed({ errors: result.errors })
}

export const webhookRoutes = async (app: FastifyInstance, ctx: RouteContext) => {
  const manage = requireApiKey(ctx, 'webhooks.manage')
  const who = (request: FastifyRequest) => {
    const principal = principalOf(request)
    return { org_id: principal.org_id, metadata: requestMetadata(request, `api_key:${principal.key_id}`) }
  }
  const now = () => ctx.run(currentTime)
  const current = async (orgId: string, endpointId: string, position: number) => {
    await ctx.run(waitForPosition(WEBHOOK_ENDPOINTS, endpointId, position))
    return endpointView(await ctx.run(getWebhookEndpoint(orgId, endpointId)), await now())
  }

  app.post('/v1/webhook-endpoints', {
    preHandler: manage,
    schema: {
      tags: ['webhooks'], summary: 'Create a webhook endpoint', security,
      description: `Events of the kinds in \`enabled_events\` (${SUBSCRIBABLE_KINDS.map((k) => `\`${k}\``).join(', ')}) recorded from now on are POSTed to \`url\`, signed with the Standard Webhooks scheme (README, "Webhooks"). The signing secret is in this answer only. 400 \`missing_url\`, \`missing_enabled_events\`; 422 \`invalid_url\`, \`unsafe_url\` (a non-public destination, also when the host name resolves only to such addresses), \`invalid_enabled_events\`, \`invalid_description\`, \`unknown_field\`; 422 \`webhook_endpoint_limit_reached\` when the organization already has ${MAX_WEBHOOK_ENDPOINTS_PER_ORG} endpoints (every event is sent once per subscribed endpoint; delete one first: docs/webhook-delivery-limits.md). A refused request creates nothing.`,
      body: { type: 'object', required: ['url', 'enabled_events'], additionalProperties: false, properties: BODY_PROPERTIES },
      response: { 201: WithSecretSchema, ...errors(400, 401, 403, 422) },
    },
  }, async (request, reply) => {
    const { org_id, metadata } = who(request)
    const body = checked(validateEndpointRequest(request.body, ctx.settings.ssrfAllowlist))
    const existing = (await ctx.run(listWebhookEndpoints(org_id))).map((doc) => doc.endpoint_id)
    const created = await ctx.run(createWebhookEndpoint({ org_id, request: body, allowlist: ctx.settings.ssrfAllowlist, existing, metadata }))
    return reply.code(201).send({ ...(await current(org_id, created.endpoint_id, created.position)), secret: created.secret })
  })

  app.get('/v1/webhook-endpoints', {
    preHandler: manage,
    schema: { tags: ['webhooks'], summary: 'List webhook endpoints (never their secrets)', security, response: { 200: { type: 'object', properties: { items: { type: 'array', items: EndpointSchema } } }, ...errors(401, 403) } },
  }, async (request) => {
    const [docs, at] = await Promise.all([ctx.run(listWebhookEndpoints(principalOf(request).org_id)), now()])
    return { items: docs.map((doc) => endpointView(doc, at)) }
  })

  app.get('/v1/webhook-endpoints/:endpoint_id', {
    preHandler: manage,
    schema: { tags: ['webhooks'], summary: 'A webhook endpoint', security, params: endpointParams, response: { 200: EndpointSchema, ...errors(401, 403, 404) } },
  }, async (request) => endpointView(await ctx.run(getWebhookEndpoint(principalOf(request).org_id, (request.params as { endpoint_id: string }).endpoint_id)), await now()))

  app.patch('/v1/webhook-endpoints/:endpoint_id', {
    preHandler: manage,
    schema: {
      tags: ['webhooks'], summary: 'Change a webhook endpoint', security, params: endpointParams,
      description: 'Any of `url`, `enabled_events`, `description`, `enabled`. `enabled: true` brings back an endpoint the service disabled (410 or 3 days of failures); events recorded while it was disabled are not sent. 422 codes as on creation, and `invalid_enabled`.',
      body: { type: 'object', additionalProperties: false, properties: { ...BODY_PROPERTIES, enabled: { type: 'boolean' } } },
      response: { 200: EndpointSchema, ...errors(400, 401, 403, 404, 422) },
    },
  }, async (request) => {
    const { org_id, metadata } = who(request)
    const { endpoint_id } = request.params as { endpoint_id: string }
    await ctx.run(getWebhookEndpoint(org_id, endpoint_id))
    const changes = checked(validateEndpointChanges(request.body, ctx.settings.ssrfAllowlist))
    const updated = await ctx.run(updateWebhookEndpoint({ org_id, endpoint_id, changes, allowlist: ctx.settings.ssrfAllowlist, metadata }))
    return current(org_id, endpoint_id, updated.position)
  })

  app.delete('/v1/webhook-endpoints/:endpoint_id', {
    preHandler: manage,
    schema: {
      tags: ['webhooks'], summary: 'Delete a webhook endpoint', security, params: endpointParams,
      description: 'Nothing more is sent to it, pending retries included; it answers 404 from then on.',
      response: { 200: { type: 'object', properties: { endpoint_id: { type: 'string' }, deleted: { type: 'boolean' } } }, ...errors(401, 403, 404) },
    },
  }, async (request) => {
    const { org_id, metadata } = who(request)
    const { endpoint_id } = request.params as { endpoint_id: string }
    await ctx.run(getWebhookEndpoint(org_id, endpoint_id))
    const deleted = await ctx.run(deleteWebhookEndpoint({ org_id, endpoint_id, metadata }))
    await ctx.run(waitForPosition(WEBHOOK_ENDPOINTS, endpoint_id, deleted.position))
    return { endpoint_id, deleted: true }
  })

  app.post('/v1/webhook-endpoints/:endpoint_id/rotate-secret', {
    preHandler: manage,
    schema: {
      tags: ['webhooks'], summary: 'Rotate the signing secret', security, params: endpointParams,
      description: 'Answers the new secret (once). For 24 hours every delivery carries two signatures, one per secret (space-separated in `Webhook-Signature`), so receivers can switch without losing events.',
      response: { 200: WithSecretSchema, ...errors(401, 403, 404) },
    },
  }, async (request) => {
    const { org_id, metadata } = who(request)
    const { endpoint_id } = request.params as { endpoint_id: string }
    await ctx.run(getWebhookEndpoint(org_id, endpoint_id))
    const rotated = await ctx.run(rotateWebhookSecret({ org_id, endpoint_id, metadata }))
    return { ...(await current(org_id, endpoint_id, rotated.position)), secret: rotated.secret }
  })

  app.post('/v1/webhook-endpoints/:endpoint_id/test', {
    preHandler: manage,
    schema: {
      tags: ['webhooks'], summary: 'Send a ping event', security, params: endpointParams,
      description: 'Sends this endpoint a `ping` event (data: `endpoint_id`, `requested_at`), signed and retried like any other; its attempts appear in the deliveries.',
      response: { 202: { type: 'object', properties: { endpoint_id: { type: 'string' }, type: { type: 'string' }, requested_at: { type: 'string' } } }, ...errors(401, 403, 404) },
    },
  }, async (request, reply) => {
    const { org_id, metadata } = who(request)
    const { endpoint_id } = request.params as { endpoint_id: string }
    await ctx.run(getWebhookEndpoint(org_id, endpoint_id))
    const { events } = await ctx.run(requestWebhookPing({ org_id, endpoint_id, metadata }))
    const ping = events[0]
    return reply.code(202).send({ endpoint_id, type: 'ping', requested_at: ping && 'requested_at' in ping ? ping.requested_at : null })
  })

  app.get('/v1/webhook-endpoints/:endpoint_id/deliveries', {
    preHandler: manage,
    schema: {
      tags: ['webhooks'], summary: 'Deliveries to an endpoint, newest first', security, params: endpointParams,
      description: 'Each delivery is one event owed to this endpoint, with every attempt: time, status code, latency, the first kilobyte of the answer and the error.',
      querystring: { type: 'object', additionalProperties: false, properties: pagingProperties(20) },
      response: { 200: { type: 'object', properties: { items: { type: 'array', items: DeliverySchema }, total: { type: 'integer' }, page: { type: 'integer' }, per_page: { type: 'integer' } } }, ...errors(401, 403, 404, 422) },
    },
  }, async (request) => {
    const { endpoint_id } = request.params as { endpoint_id: string }
    const { page, per_page } = request.query as { page: number; per_page: number }
    const { items, total } = await ctx.run(listWebhookDeliveries(principalOf(request).org_id, endpoint_id, page, per_page))
    return { items: items.map(deliveryView), total, page, per_page }
  })

  app.post('/v1/webhook-endpoints/:endpoint_id/deliveries/:delivery_id/replay', {
    preHandler: manage,
    schema: {
      tags: ['webhooks'], summary: 'Send a delivery again', security, params: deliveryParams,
      description: 'The same event (same `event_id` and body) is sent again now, with a fresh retry window, whatever became of it before. The endpoint must be enabled for it to be sent.',
      response: { 202: DeliverySchema, ...errors(401, 403, 404) },
    },
  }, async (request, reply) => {
    const { org_id, metadata } = who(request)
    const { endpoint_id, delivery_id } = request.params as { endpoint_id: string; delivery_id: string }
    await ctx.run(getWebhookDelivery(org_id, endpoint_id, delivery_id))
    const replayed = await ctx.run(replayWebhookDelivery({ org_id, endpoint_id, delivery_id, metadata }))
    await ctx.run(waitForPosition(WEBHOOK_DELIVERIES, delivery_id, replayed.position))
    return reply.code(202).send(deliveryView(await ctx.run(getWebhookDelivery(org_id, endpoint_id, delivery_id))))
  })
}
