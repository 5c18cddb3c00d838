import { Effect } from 'effect'
import { NotFound } from '../domain/errors.js'
import type { DocumentStoreService } from '../ports/document-store.js'
import { countDocs, findDocs, getDoc } from './projection.js'
import { waitForPosition } from './read-your-writes.js'
import { rememberedWhileUnchanged } from './while-unchanged.js'
import { WEBHOOK_DELIVERIES, WEBHOOK_ENDPOINTS, type WebhookEndpointDoc } from './webhooks.js'

export const listWebhookEndpoints = (orgId: string) =>
  findDocs(WEBHOOK_ENDPOINTS, { org_id: orgId, deleted: false }, { sort: [['created_at', 'asc'], ['endpoint_id', 'asc']] })

/** Another organization's endpoint, or a deleted one, is not found. */
export const getWebhookEndpoint = (orgId: string, endpointId: string) =>
  Effect.gen(function* () {
    const doc = yield* getDoc(WEBHOOK_ENDPOINTS, endpointId)
    if (!doc || doc.org_id !== orgId || doc.deleted) return yield* Effect.fail(new NotFound({ resource: 'webhook_endpoint', id: endpointId }))
    return doc
  })

export const listWebhookDeliveries = (orgId: string, endpointId: string, page: number, perPage: number) =>
  Effect.gen(function* () {
    yield* getWebhookEndpoint(orgId, endpointId)
    const filter = { endpoint_id: endpointId }
    const [items, total] = yield* Effect.all([
      findDocs(WEBHOOK_DELIVERIES, filter, { sort: [['created_at', 'desc'], ['delivery_id', 'asc']], skip: (page - 1) * perPage, limit: perPage }),
      countDocs(WEBHOOK_DELIVERIES, filter),
    ])
    return { items, total }
  })

export const getWebhookDelivery = (orgId: string, endpointId: string, deliveryId: string) =>
  Effect.gen(function* () {
    yield* getWebhookEndpoint(orgId, endpointId)
    const doc = yield* getDoc(WEBHOOK_DELIVERIES, deliveryId)
    if (!doc || doc.endpoint_id !== endpointId) return yield* Effect.fail(new NotFound({ resource: 'webhook_delivery', id: deliveryId }))
    return doc
  })

/**
 * An organization's enabled endpoints, read once while the endpoints collection does not change (the fan-out asks
 * for them at every job's end, and endpoints change seldom).
 */
const enabledEndpointsOf = rememberedWhileUnchanged([WEBHOOK_ENDPOINTS.name], (orgId) => findDocs(WEBHOOK_ENDPOINTS, { org_id: orgId, enabled: true, deleted: false }))

/**
 * Enabled endpoints of an organization subscribed to a kind that were created before the log position `before`:
 * where a webhook event from the event recorded at `before` goes.
 */
export const subscribedWebhookEndpoints = (orgId: string, kinds: readonly string[], before: number) =>
  Effect.map(enabledEndpointsOf(orgId), (docs) => subscribedOf(docs, kinds, before))

/**
 * The same answer from endpoints remembered while unchanged, without running an effect (the fan-out asks at every
 * job's end, and most organizations have none): undefined when they must be read.
 */
export const rememberedSubscribedWebhookEndpoints = (store: DocumentStoreService, orgId: string, kinds: readonly string[], before: number) => {
  const docs = enabledEndpointsOf.peek(store, orgId)
  return docs && subscribedOf(docs, kinds, before)
}

const subscribedOf = (docs: readonly WebhookEndpointDoc[], kinds: readonly string[], before: number): ReadonlyMap<string, readonly string[]> => {
  // A document projected before created_position existed counts as created at the log's start.
  const created = docs.filter((doc) => (doc.created_position ?? 0) < before)
  return new Map(kinds.map((kind) => [kind, created.filter((doc) => doc.enabled_events.includes(kind)).map((doc) => doc.endpoint_id)]))
}

/** The log position the endpoints read model has applied for one endpoint, or null before its creation is applied. */
export const webhookEndpointVersion = (endpointId: string) =>
  Effect.map(getDoc(WEBHOOK_ENDPOINTS, endpointId), (doc) => doc?._position ?? null)

/** Waits (a few seconds at most) for the read model to show an endpoint as of a log position. */
export const webhookEndpointShown = (endpointId: string, position: number) =>
  Effect.map(waitForPosition(WEBHOOK_ENDPOINTS, endpointId, position), (doc) => ({ shown: doc !== null, deleted: doc?.deleted ?? false }))

/** Pending deliveries whose next attempt is due at `now`, oldest first. */
export const dueWebhookDeliveries = (now: Date, limit: number) =>
  Effect.map(findDocs(WEBHOOK_DELIVERIES, { status: 'pending', next_attempt_at: { $lte: now.toISOString() } }, { sort: [['next_attempt_at', 'asc']], limit }),
    (docs) => docs.map((doc) => ({ delivery_id: doc.delivery_id, endpoint_id: doc.endpoint_id, org_id: doc.org_id })))

/** When the earliest pending delivery is due; null when none is pending. */
export const nextWebhookAttemptAt = Effect.map(
  // A pending delivery always has its next attempt's instant; the bound skips the others' nulls in the index.
  findDocs(WEBHOOK_DELIVERIES, { status: 'pending', next_attempt_at: { $gte: '' } }, { sort: [['next_attempt_at', 'asc']], limit: 1 }),
  (docs) => (docs[0]?.next_attempt_at ? new Date(docs[0].next_attempt_at) : null),
)
