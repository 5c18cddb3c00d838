import { Schema } from 'effect'

/**
 * Events of a webhook endpoint (`webhook-endpoint-<id>`). Signing secrets are recorded sealed (the sealing event
 * store encrypts every `secret` of these events before they reach the store), never in clear.
 */
export class WebhookEndpointCreated extends Schema.TaggedClass<WebhookEndpointCreated>()('WebhookEndpointCreated', {
  endpoint_id: Schema.String,
  org_id: Schema.String,
  url: Schema.String,
  enabled_events: Schema.Array(Schema.String),
  description: Schema.NullOr(Schema.String),
  secret: Schema.String,
  created_at: Schema.String,
}) {}

/** A change asked for by the organization; absent fields are unchanged. */
export class WebhookEndpointUpdated extends Schema.TaggedClass<WebhookEndpointUpdated>()('WebhookEndpointUpdated', {
  endpoint_id: Schema.String,
  url: Schema.optional(Schema.String),
  enabled_events: Schema.optional(Schema.Array(Schema.String)),
  description: Schema.optional(Schema.NullOr(Schema.String)),
  enabled: Schema.optional(Schema.Boolean),
  updated_at: Schema.String,
}) {}

/** The service stopped delivering: the receiver answered 410 Gone, or every delivery failed for the whole retry window. */
export class WebhookEndpointDisabled extends Schema.TaggedClass<WebhookEndpointDisabled>()('WebhookEndpointDisabled', {
  endpoint_id: Schema.String,
  org_id: Schema.String,
  reason: Schema.Literal('gone', 'failing'),
  message: Schema.String,
  disabled_at: Schema.String,
}) {}

/** First failed attempt after a success (or ever): the start of the window after which the endpoint is disabled. */
export class WebhookEndpointFailing extends Schema.TaggedClass<WebhookEndpointFailing>()('WebhookEndpointFailing', {
  endpoint_id: Schema.String,
  since: Schema.String,
}) {}

/** A successful delivery to an endpoint that was failing. */
export class WebhookEndpointRecovered extends Schema.TaggedClass<WebhookEndpointRecovered>()('WebhookEndpointRecovered', {
  endpoint_id: Schema.String,
  recovered_at: Schema.String,
}) {}

/** A delivery got no answer (timeout, refused or reset connection): one more toward opening the circuit. */
export class WebhookEndpointUnreachable extends Schema.TaggedClass<WebhookEndpointUnreachable>()('WebhookEndpointUnreachable', {
  endpoint_id: Schema.String,
  at: Schema.String,
}) {}

/**
 * The circuit breaker opened (domain/webhook/circuit.ts): deliveries wait until `retry_at`, then one probe is sent.
 * `trips` counts the openings since it last closed (the cool-down doubles with each).
 */
export class WebhookEndpointCircuitOpened extends Schema.TaggedClass<WebhookEndpointCircuitOpened>()('WebhookEndpointCircuitOpened', {
  endpoint_id: Schema.String,
  org_id: Schema.String,
  opened_at: Schema.String,
  retry_at: Schema.String,
  unreachable: Schema.Number,
  trips: Schema.Number,
}) {}

/** The endpoint answered: its run of unreachable attempts ends and an open circuit closes. */
export class WebhookEndpointCircuitClosed extends Schema.TaggedClass<WebhookEndpointCircuitClosed>()('WebhookEndpointCircuitClosed', {
  endpoint_id: Schema.String,
  closed_at: Schema.String,
}) {}

/** The previous secret keeps signing beside the new one until `previous_valid_until`. */
export class WebhookSecretRotated extends Schema.TaggedClass<WebhookSecretRotated>()('WebhookSecretRotated', {
  endpoint_id: Schema.String,
  secret: Schema.String,
  previous_valid_until: Schema.String,
  rotated_at: Schema.String,
}) {}

/** POST .../test: the dispatcher sends this endpoint a `ping` event. */
export class WebhookPingRequested extends Schema.TaggedClass<WebhookPingRequested>()('WebhookPingRequested', {
  endpoint_id: Schema.String,
  org_id: Schema.String,
  requested_at: Schema.String,
}) {}

export class WebhookEndpointDeleted extends Schema.TaggedClass<WebhookEndpointDeleted>()('WebhookEndpointDeleted', {
  endpoint_id: Schema.String,
  deleted_at: Schema.String,
}) {}

export const WebhookEndpointEvent = Schema.Union(
  WebhookEndpointCreated, WebhookEndpointUpdated, WebhookEndpointDisabled, WebhookEndpointFailing, WebhookEndpointRecovered,
  WebhookSecretRotated, WebhookPingRequested, WebhookEndpointDeleted,
  WebhookEndpointUnreachable, WebhookEndpointCircuitOpened, WebhookEndpointCircuitClosed,
)
export type WebhookEndpointEvent = typeof WebhookEndpointEvent.Type

/**
 * A short-lived signed link to a blob (a change's diff) that the dispatcher mints into `data[field]` (and its expiry
 * into `data[field + '_expires_at']`) at every attempt, so a retried delivery never carries an expired link.
 */
export const SignedLink = Schema.Struct({ field: Schema.String, blob_key: Schema.String, download_name: Schema.String })
export type SignedLink = typeof SignedLink.Type

/**
 * One webhook event owed to one endpoint (`webhook-delivery-<delivery_id>`, the id derived from endpoint and source
 * event): the body is fixed here, so every attempt sends the same data under the same `event_id` (only signed links
 * are minted afresh per attempt).
 */
export class WebhookDeliveryScheduled extends Schema.TaggedClass<WebhookDeliveryScheduled>()('WebhookDeliveryScheduled', {
  delivery_id: Schema.String,
  endpoint_id: Schema.String,
  org_id: Schema.String,
  event_id: Schema.String,
  type: Schema.String,
  /** The JSON envelope `{event_id, type, created_at, data}` as sent, but for its signed links. */
  body: Schema.String,
  signed_links: Schema.optional(Schema.Array(SignedLink)),
  source_event_id: Schema.String,
  scheduled_at: Schema.String,
}) {}

export const AttemptOutcome = Schema.Literal('succeeded', 'retrying', 'exhausted', 'gone')
export type AttemptOutcome = typeof AttemptOutcome.Type

/** One POST to the receiver and what it decided: the next attempt's time is part of it, so retries survive restarts. */
export class WebhookDeliveryAttempted extends Schema.TaggedClass<WebhookDeliveryAttempted>()('WebhookDeliveryAttempted', {
  delivery_id: Schema.String,
  attempt: Schema.Number,
  attempted_at: Schema.String,
  status_code: Schema.NullOr(Schema.Number),
  latency_ms: Schema.Number,
  /** The first kilobyte of the receiver's answer. */
  response_excerpt: Schema.String,
  error: Schema.NullOr(Schema.String),
  outcome: AttemptOutcome,
  next_attempt_at: Schema.NullOr(Schema.String),
}) {}

/** The endpoint was disabled or deleted before the event could be delivered. */
export class WebhookDeliveryCancelled extends Schema.TaggedClass<WebhookDeliveryCancelled>()('WebhookDeliveryCancelled', {
  delivery_id: Schema.String,
  reason: Schema.Literal('endpoint_disabled', 'endpoint_deleted'),
  cancelled_at: Schema.String,
}) {}

/** POST .../replay: the same event (same event_id and body) is sent again, with a fresh retry window. */
export class WebhookDeliveryReplayRequested extends Schema.TaggedClass<WebhookDeliveryReplayRequested>()('WebhookDeliveryReplayRequested', {
  delivery_id: Schema.String,
  requested_at: Schema.String,
}) {}

export const WebhookDeliveryEvent = Schema.Union(WebhookDeliveryScheduled, WebhookDeliveryAttempted, WebhookDeliveryCancelled, WebhookDeliveryReplayRequested)
export type WebhookDeliveryEvent = typeof WebhookDeliveryEvent.Type
