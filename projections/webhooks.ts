import { statusAfter, type DeliveryStatus } from '../domain/webhook/delivery-decider.js'
import { collection, defineProjection, updateDoc, type Stored } from './projection.js'

/** An endpoint as its organization sees it: never its signing secret. */
export type WebhookEndpointDoc = Stored<{
  readonly endpoint_id: string
  readonly org_id: string
  readonly url: string
  readonly enabled_events: readonly string[]
  readonly description: string | null
  readonly enabled: boolean
  /** Why the service disabled it (`gone`: the receiver answered 410; `failing`: 3 days of failures); null otherwise. */
  readonly disabled_reason: 'gone' | 'failing' | null
  readonly disabled_message: string | null
  readonly deleted: boolean
  readonly secret_rotated_at: string | null
  /** When its current run of failed attempts began; null while deliveries succeed. */
  readonly failing_since: string | null
  /**
   * The circuit breaker: open from `opened_at` until `retry_at` (both null while closed); documents written before
   * the breaker existed have none (closed).
   */
  readonly circuit?: { readonly opened_at: string | null; readonly retry_at: string | null }
  /** Log position of its creation event: it receives the events recorded after it (webhook fan-out). */
  readonly created_position: number
  readonly created_at: string
  readonly updated_at: string
}>

export interface AttemptView {
  readonly attempt: number
  readonly attempted_at: string
  readonly status_code: number | null
  readonly latency_ms: number
  readonly response_excerpt: string
  readonly error: string | null
  readonly outcome: string
}

export type WebhookDeliveryDoc = Stored<{
  readonly delivery_id: string
  readonly endpoint_id: string
  readonly org_id: string
  readonly event_id: string
  readonly type: string
  readonly status: DeliveryStatus
  /** When the dispatcher tries next; null once the delivery is settled. */
  readonly next_attempt_at: string | null
  readonly attempts: readonly AttemptView[]
  readonly created_at: string
}>

export const WEBHOOK_ENDPOINTS = collection<WebhookEndpointDoc>('webhook_endpoints')
export const WEBHOOK_DELIVERIES = collection<WebhookDeliveryDoc>('webhook_deliveries')

export const webhooksProjection = defineProjection({
  name: 'projection.webhooks',
  categories: ['webhook-endpoint', 'webhook-delivery'],
  collections: [WEBHOOK_ENDPOINTS.name, WEBHOOK_DELIVERIES.name],
  indexes: [
    { collection: WEBHOOK_ENDPOINTS.name, fields: [['org_id', 1], ['created_at', 1]] },
    { collection: WEBHOOK_DELIVERIES.name, fields: [['endpoint_id', 1], ['created_at', -1]] },
    { collection: WEBHOOK_DELIVERIES.name, fields: [['status', 1], ['next_attempt_at', 1]] },
    // The dispatcher's ask for what is due, on each of its turns.
    { collection: WEBHOOK_DELIVERIES.name, fields: [['next_attempt_at', 1]], embedded: true },
  ],
  // Each document is written by one stream only.
  concurrency: 8,
  ordering: 'stream',
  fold: (event, envelope, view) => {
    switch (event._tag) {
      case 'WebhookEndpointCreated':
        return updateDoc(view, WEBHOOK_ENDPOINTS, event.endpoint_id, envelope, () => ({
          endpoint_id: event.endpoint_id, org_id: event.org_id, url: event.url, enabled_events: event.enabled_events, description: event.description,
          enabled: true, disabled_reason: null, disabled_message: null, deleted: false, secret_rotated_at: null, failing_since: null,
          circuit: { opened_at: null, retry_at: null }, created_position: envelope.position, created_at: event.created_at, updated_at: event.created_at,
        }))
      case 'WebhookEndpointUpdated':
        return updateDoc(view, WEBHOOK_ENDPOINTS, event.endpoint_id, envelope, (doc) => doc && {
          ...doc,
          ...(event.url !== undefined ? { url: event.url } : {}),
          ...(event.enabled_events !== undefined ? { enabled_events: event.enabled_events } : {}),
          ...(event.description !== undefined ? { description: event.description } : {}),
          ...(event.enabled !== undefined ? { enabled: event.enabled, disabled_reason: null, disabled_message: null, ...(event.enabled ? { failing_since: null } : {}) } : {}),
          updated_at: event.updated_at,
        })
      case 'WebhookEndpointDisabled':
        return updateDoc(view, WEBHOOK_ENDPOINTS, event.endpoint_id, envelope, (doc) => doc && {
          ...doc, enabled: false, disabled_reason: event.reason, disabled_message: event.message, updated_at: event.disabled_at,
        })
      case 'WebhookSecretRotated':
        return updateDoc(view, WEBHOOK_ENDPOINTS, event.endpoint_id, envelope, (doc) => doc && { ...doc, secret_rotated_at: event.rotated_at, updated_at: event.rotated_at })
      case 'WebhookEndpointDeleted':
        return updateDoc(view, WEBHOOK_ENDPOINTS, event.endpoint_id, envelope, (doc) => doc && { ...doc, enabled: false, deleted: true, updated_at: event.deleted_at })
      // Written (moving the document's position) so the dispatcher's cached endpoint state is known to be stale.
      case 'WebhookEndpointFailing':
        return updateDoc(view, WEBHOOK_ENDPOINTS, event.endpoint_id, envelope, (doc) => doc && { ...doc, failing_since: event.since })
      case 'WebhookEndpointRecovered':
        return updateDoc(view, WEBHOOK_ENDPOINTS, event.endpoint_id, envelope, (doc) => doc && { ...doc, failing_since: null })
      // Written (moving the position) for the dispatcher's cache; the view shows only an opened circuit.
      case 'WebhookEndpointUnreachable':
        return updateDoc(view, WEBHOOK_ENDPOINTS, event.endpoint_id, envelope, (doc) => doc && { ...doc })
      case 'WebhookEndpointCircuitOpened':
        return updateDoc(view, WEBHOOK_ENDPOINTS, event.endpoint_id, envelope, (doc) => doc && { ...doc, circuit: { opened_at: event.opened_at, retry_at: event.retry_at } })
      case 'WebhookEndpointCircuitClosed':
        return updateDoc(view, WEBHOOK_ENDPOINTS, event.endpoint_id, envelope, (doc) => doc && { ...doc, circuit: { opened_at: null, retry_at: null } })
      // A ping changes nothing an endpoint shows or the dispatcher uses.
      case 'WebhookPingRequested':
        return updateDoc(view, WEBHOOK_ENDPOINTS, event.endpoint_id, envelope, () => null)
      case 'WebhookDeliveryScheduled':
        return updateDoc(view, WEBHOOK_DELIVERIES, event.delivery_id, envelope, () => ({
          delivery_id: event.delivery_id, endpoint_id: event.endpoint_id, org_id: event.org_id, event_id: event.event_id, type: event.type,
          status: 'pending' as const, next_attempt_at: event.scheduled_at, attempts: [], created_at: event.scheduled_at,
        }))
      case 'WebhookDeliveryAttempted':
        return updateDoc(view, WEBHOOK_DELIVERIES, event.delivery_id, envelope, (doc) => doc && {
          ...doc,
          status: statusAfter(event.outcome),
          next_attempt_at: event.next_attempt_at,
          attempts: [...doc.attempts, {
            attempt: event.attempt, attempted_at: event.attempted_at, status_code: event.status_code, latency_ms: event.latency_ms,
            response_excerpt: event.response_excerpt, error: event.error, outcome: event.outcome,
          }],
        })
      case 'WebhookDeliveryCancelled':
        return updateDoc(view, WEBHOOK_DELIVERIES, event.delivery_id, envelope, (doc) => doc && { ...doc, status: 'cancelled' as const, next_attempt_at: null })
      case 'WebhookDeliveryReplayRequested':
        return updateDoc(view, WEBHOOK_DELIVERIES, event.delivery_id, envelope, (doc) => doc && { ...doc, status: 'pending' as const, next_attempt_at: event.requested_at })
    }
  },
})
