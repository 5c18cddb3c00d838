import { randomBytes, randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import type { Allowlist } from '../domain/address-policy.js'
import { STREAMS } from '../domain/streams.js'
import { deliveryDecider, type AttemptResult, type DeliveryCommand } from '../domain/webhook/delivery-decider.js'
import { endpointDecider, type EndpointChanges, type EndpointCommand } from '../domain/webhook/endpoint-decider.js'
import type { EndpointRequest } from '../domain/webhook/endpoint-request.js'
import { webhookEndpointQuotaDecider, type WebhookEndpointQuotaCommand } from '../domain/webhook/endpoint-quota.js'
import type { WebhookDeliveryEvent, WebhookDeliveryScheduled, WebhookEndpointEvent } from '../domain/webhook/events.js'
import { SECRET_PREFIX } from '../domain/webhook/signing.js'
import { Clock } from '../ports/clock.js'
import { EventStore, type EventMetadata } from '../ports/event-store.js'
import { deterministicId, handle, type CommandContext, foldHistory } from './handle.js'
import { checkUrlResolution } from './url-resolution.js'

/** `whsec_` + base64 of 32 random bytes: the Standard Webhooks secret format. */
const newSigningSecret = () => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`

const now = Effect.map(Clock, (clock) => clock.now().toISOString())

const onEndpoint = (orgId: string, command: EndpointCommand, ctx: Omit<CommandContext, 'org_id'>) =>
  handle(endpointDecider, STREAMS['webhook-endpoint'].stream(command.endpoint_id), command, { ...ctx, org_id: orgId })

const checkUrl = (url: string, allowlist: Allowlist) => checkUrlResolution(new URL(url), allowlist, 'url', 'unsafe_url')

const onQuota = (command: WebhookEndpointQuotaCommand, metadata: EventMetadata) =>
  handle(webhookEndpointQuotaDecider, STREAMS['webhook-endpoint-quota'].stream(command.org_id), command, { org_id: command.org_id, metadata })

/**
 * Creates an endpoint; its signing secret is answered here and never again (the event holds it sealed). A place
 * among the organization's endpoints is claimed first (422 webhook_endpoint_limit_reached when none is left);
 * `existing` are the endpoints the read model shows.
 */
export const createWebhookEndpoint = (input: { readonly org_id: string; readonly request: EndpointRequest; readonly allowlist: Allowlist; readonly existing: readonly string[]; readonly metadata: EventMetadata }) =>
  Effect.gen(function* () {
    yield* checkUrl(input.request.url, input.allowlist)
    const endpointId = randomUUID()
    yield* onQuota({ _tag: 'ClaimPlace', org_id: input.org_id, endpoint_id: endpointId, existing: input.existing, now: yield* now }, input.metadata)
    const secret = newSigningSecret()
    const handled = yield* onEndpoint(input.org_id, {
      _tag: 'CreateEndpoint', endpoint_id: endpointId, org_id: input.org_id, ...input.request, secret, now: yield* now,
    }, { metadata: input.metadata })
    return { endpoint_id: endpointId, secret, position: handled.position }
  })

export const updateWebhookEndpoint = (input: { readonly org_id: string; readonly endpoint_id: string; readonly changes: EndpointChanges; readonly allowlist: Allowlist; readonly metadata: EventMetadata }) =>
  Effect.gen(function* () {
    if (input.changes.url !== undefined) yield* checkUrl(input.changes.url, input.allowlist)
    return yield* onEndpoint(input.org_id, { _tag: 'UpdateEndpoint', endpoint_id: input.endpoint_id, org_id: input.org_id, changes: input.changes, now: yield* now }, { metadata: input.metadata })
  })

/** A new secret, answered once; the previous one keeps signing for 24 hours. */
export const rotateWebhookSecret = (input: { readonly org_id: string; readonly endpoint_id: string; readonly metadata: EventMetadata }) =>
  Effect.gen(function* () {
    const secret = newSigningSecret()
    const handled = yield* onEndpoint(input.org_id, { _tag: 'RotateSecret', endpoint_id: input.endpoint_id, org_id: input.org_id, secret, now: yield* now }, { metadata: input.metadata })
    return { secret, position: handled.position }
  })

export const requestWebhookPing = (input: { readonly org_id: string; readonly endpoint_id: string; readonly metadata: EventMetadata }) =>
  Effect.flatMap(now, (at) => onEndpoint(input.org_id, { _tag: 'RequestPing', endpoint_id: input.endpoint_id, org_id: input.org_id, now: at }, { metadata: input.metadata }))

/** Deletes an endpoint, then frees its place among the organization's endpoints. */
export const deleteWebhookEndpoint = (input: { readonly org_id: string; readonly endpoint_id: string; readonly metadata: EventMetadata }) =>
  Effect.gen(function* () {
    const at = yield* now
    const deleted = yield* onEndpoint(input.org_id, { _tag: 'DeleteEndpoint', endpoint_id: input.endpoint_id, org_id: input.org_id, now: at }, { metadata: input.metadata })
    yield* onQuota({ _tag: 'ReleasePlace', org_id: input.org_id, endpoint_id: input.endpoint_id, now: at }, input.metadata)
    return deleted
  })

/** The dispatcher's verdicts on an endpoint (disable, failing, recovered); `idSeed` makes a retried verdict append nothing new. */
export const judgeWebhookEndpoint = (orgId: string, command: EndpointCommand, ctx: Omit<CommandContext, 'org_id'>) => onEndpoint(orgId, command, ctx)

/** An endpoint's state as its stream folds, with the log position of its last event (0 for no stream). */
export const loadWebhookEndpoint = (endpointId: string) =>
  Effect.gen(function* () {
    const history = yield* (yield* EventStore).readStream(STREAMS['webhook-endpoint'].stream(endpointId))
    return { state: foldHistory(endpointDecider, history), position: history.at(-1)?.position ?? 0 }
  })

/** A delivery's id: one per (endpoint, webhook event), so scheduling it twice appends nothing. */
export const webhookDeliveryId = (endpointId: string, sourceEventId: string, key: string) => deterministicId(`webhook-delivery:${endpointId}:${sourceEventId}:${key}`)

/** The envelope's `event_id`, the same on every attempt and replay to one endpoint. */
export const webhookEventId = (deliveryId: string) => `evt_${deliveryId.replaceAll('-', '')}`

const onDelivery = (orgId: string, deliveryId: string, command: DeliveryCommand, ctx: Omit<CommandContext, 'org_id'>) =>
  handle(deliveryDecider, STREAMS['webhook-delivery'].stream(deliveryId), command, { ...ctx, org_id: orgId })

export const scheduleWebhookDelivery = (delivery: Omit<WebhookDeliveryScheduled, '_tag'>, ctx: Omit<CommandContext, 'org_id'>) =>
  onDelivery(delivery.org_id, delivery.delivery_id, { _tag: 'ScheduleDelivery', delivery, now: delivery.scheduled_at }, ctx)

export const recordWebhookAttempt = (orgId: string, deliveryId: string, attempt: number, result: AttemptResult, ctx: Omit<CommandContext, 'org_id'>) =>
  onDelivery(orgId, deliveryId, { _tag: 'RecordAttempt', attempt, result, now: result.attempted_at }, ctx)

export const cancelWebhookDelivery = (orgId: string, deliveryId: string, reason: 'endpoint_disabled' | 'endpoint_deleted', ctx: Omit<CommandContext, 'org_id'>) =>
  Effect.flatMap(now, (at) => onDelivery(orgId, deliveryId, { _tag: 'CancelDelivery', reason, now: at }, ctx))

/** Sends the same event (same event_id and body) again, with a fresh retry window. The endpoint's owner is checked by the caller. */
export const replayWebhookDelivery = (input: { readonly org_id: string; readonly endpoint_id: string; readonly delivery_id: string; readonly metadata: EventMetadata }) =>
  Effect.flatMap(now, (at) => onDelivery(input.org_id, input.delivery_id, {
    _tag: 'ReplayDelivery', delivery_id: input.delivery_id, endpoint_id: input.endpoint_id, now: at,
  }, { metadata: input.metadata }))

export const loadWebhookDelivery = (deliveryId: string) =>
  Effect.gen(function* () {
    const history = yield* (yield* EventStore).readStream(STREAMS['webhook-delivery'].stream(deliveryId))
    return foldHistory(deliveryDecider, history)
  })
