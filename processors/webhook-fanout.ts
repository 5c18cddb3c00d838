import { Effect } from 'effect'
import { loadJob } from '../commands/jobs.js'
import { scheduleWebhookDelivery, webhookDeliveryId, webhookEventId } from '../commands/webhooks.js'
import type { DomainEvent } from '../domain/streams.js'
import { mappingOf, type SourceContext, type WebhookEventDraft } from '../domain/webhook/kinds.js'
import { Clock } from '../ports/clock.js'
import type { EventEnvelope, EventStore, StoreUnavailable } from '../ports/event-store.js'
import { defineProcessor } from './processor.js'
import type { Run } from './runner.js'

export interface WebhookFanoutOptions<R> {
  /** Enabled endpoints of an organization subscribed to a kind (the endpoints read model). */
  readonly subscribers: (orgId: string, kind: string) => Effect.Effect<readonly string[], StoreUnavailable, R>
  /** Called for each delivery scheduled, so the dispatcher sends it without waiting for its next look. */
  readonly scheduled: (deliveryId: string) => void
  readonly log: (message: string, detail?: unknown) => void
}

/** The categories whose events have rows in the mapping table. */
export const WEBHOOK_SOURCE_CATEGORIES = ['job', 'monitor', 'webhook-endpoint'] as const

/**
 * Turns domain events into deliveries: each event with a row in the mapping table (domain/webhook/kinds.ts) becomes
 * one delivery per subscribed endpoint, its body fixed once. The delivery id derives from (endpoint, source event,
 * row key), so a redelivered source event schedules nothing new.
 */
export const makeWebhookFanout = <R>(options: WebhookFanoutOptions<R>, run: Run<R | EventStore | Clock>) => {
  const contextFor = (needsJob: boolean, event: DomainEvent) =>
    Effect.gen(function* () {
      if (!needsJob || !('job_id' in event) || typeof event.job_id !== 'string') return {} satisfies SourceContext
      return { job: (yield* loadJob(event.job_id)).state } satisfies SourceContext
    })

  const schedule = (draft: WebhookEventDraft, endpointId: string, envelope: EventEnvelope) =>
    Effect.gen(function* () {
      const deliveryId = webhookDeliveryId(endpointId, envelope.event_id, draft.key)
      const eventId = webhookEventId(deliveryId)
      const body = JSON.stringify({ event_id: eventId, type: draft.kind, created_at: envelope.occurred_at, data: draft.data })
      const handled = yield* scheduleWebhookDelivery({
        delivery_id: deliveryId, endpoint_id: endpointId, org_id: envelope.org_id, event_id: eventId, type: draft.kind, body,
        source_event_id: envelope.event_id, scheduled_at: (yield* Clock).now().toISOString(),
      }, { metadata: { correlation_id: envelope.metadata.correlation_id, causation_id: envelope.event_id, actor: 'webhooks' } })
      if (handled.events.length > 0) options.scheduled(deliveryId)
    })

  const fanOut = (event: DomainEvent, envelope: EventEnvelope) =>
    Effect.gen(function* () {
      const row = mappingOf(event)
      if (!row) return
      const drafts = row.map(event as never, envelope, yield* contextFor(row.needs_job, event))
      for (const draft of drafts) {
        const endpoints = draft.only_endpoint !== undefined ? [draft.only_endpoint] : yield* options.subscribers(envelope.org_id, draft.kind)
        yield* Effect.forEach(endpoints, (endpointId) => schedule(draft, endpointId, envelope), { concurrency: 4, discard: true })
      }
    })

  return defineProcessor({
    name: 'processor.webhook-fanout',
    categories: WEBHOOK_SOURCE_CATEGORIES,
    log: options.log,
    handle: (event, envelope) => run(fanOut(event, envelope)),
  })
}
