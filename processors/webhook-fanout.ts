import { Effect } from 'effect'
import { loadDetection } from '../commands/detection.js'
import { loadJob } from '../commands/jobs.js'
import { scheduleWebhookDelivery, webhookDeliveryId, webhookEventId } from '../commands/webhooks.js'
import { decodeEvent } from '../domain/events.js'
import { streamCategory, type DomainEvent } from '../domain/streams.js'
import type { WebhookEndpointCreated } from '../domain/webhook/events.js'
import { mappingOf, WEBHOOK_MAPPING, type SourceContext, type WebhookEventDraft } from '../domain/webhook/kinds.js'
import { Clock } from '../ports/clock.js'
import { EventStore, type EventEnvelope, type StoreUnavailable } from '../ports/event-store.js'
import type { DueDelivery } from './webhook-dispatcher.js'
import { defineProcessor, type TypeOf } from './processor.js'
import type { Run } from './runner.js'

export interface WebhookFanoutOptions<R> {
  /**
   * Enabled endpoints of an organization subscribed to each of `kinds` and created before a log position (the
   * endpoints read model), by kind: one read for all the deliveries of an event.
   */
  readonly subscribers: (orgId: string, kinds: readonly string[], before: number) => Effect.Effect<ReadonlyMap<string, readonly string[]>, StoreUnavailable, R>
  /** Optional: the same answer when it is known without a read (undefined otherwise), so an event nobody is subscribed to costs no run. */
  readonly subscribersNow?: (orgId: string, kinds: readonly string[], before: number) => ReadonlyMap<string, readonly string[]> | undefined
  /**
   * Answers once the endpoints read model shows the endpoint as of `position` (false: not within its patience),
   * and whether it is still there (not deleted).
   */
  readonly endpointShown: (endpointId: string, position: number) => Effect.Effect<{ readonly shown: boolean; readonly deleted: boolean }, StoreUnavailable, R>
  /** Called for each delivery scheduled, so the dispatcher sends it without waiting for its next look. */
  readonly scheduled: (delivery: DueDelivery) => void
  readonly log: (message: string, detail?: unknown) => void
}

type Row = NonNullable<ReturnType<typeof mappingOf>>

/** The categories whose events have rows in the mapping table. */
export const WEBHOOK_SOURCE_CATEGORIES = ['job', 'monitor', 'webhook-endpoint'] as const
/** What the fan-out reacts to: the events with a mapping row (all of the source categories), and an endpoint's creation. */
const FANOUT_TYPES = [...Object.keys(WEBHOOK_MAPPING), 'WebhookEndpointCreated'] as TypeOf<(typeof WEBHOOK_SOURCE_CATEGORIES)[number]>[]
const isSourceCategory = (stream: string) => (WEBHOOK_SOURCE_CATEGORIES as readonly string[]).includes(streamCategory(stream))

/** Events read per step when an endpoint's creation is followed by the events recorded since. */
const CATCH_UP_BATCH = 500

/** How many times the fan-out waits for the read model to show a new endpoint before the event is retried. */
const SHOWN_TRIES = 20

class EndpointNotShownYet extends Error {}

/** An event this version cannot decode has no row (the subscription skips it the same way). */
const decodeIfKnown = (type: string, data: unknown): DomainEvent | null => {
  try {
    return decodeEvent(type, data)
  } catch {
    return null
  }
}

/**
 * Turns domain events into deliveries: each event with a row in the mapping table (domain/webhook/kinds.ts) becomes
 * one delivery per subscribed endpoint, its body fixed once. The delivery id derives from (endpoint, source event,
 * row key), so a redelivered source event schedules nothing new.
 *
 * Which endpoints: exactly those whose creation event was recorded before the source event (log positions). The
 * endpoints read model may lag the log, so an event handled before the read model shows a just-created endpoint
 * would miss it; the endpoint's own creation event closes that gap: once the read model shows the endpoint, the
 * fan-out reads the log from the creation's position to its end and schedules what the endpoint is owed (the ids
 * make anything already scheduled a no-op). Every event recorded later finds the endpoint in the read model.
 */
export const makeWebhookFanout = <R>(options: WebhookFanoutOptions<R>, run: Run<R | EventStore | Clock>) => {
  const contextFor = (event: DomainEvent, needs: 'none' | 'job' | 'change') =>
    Effect.gen(function* () {
      if (needs === 'job' && 'job_id' in event && typeof event.job_id === 'string') return { job: (yield* loadJob(event.job_id)).state } satisfies SourceContext
      if (needs === 'change' && 'change_id' in event && 'monitor_id' in event) {
        const change = (yield* loadDetection(event.monitor_id)).changes.get(event.change_id)
        return (change ? { change } : {}) satisfies SourceContext
      }
      return {} satisfies SourceContext
    })

  const draftsOf = (event: DomainEvent, envelope: EventEnvelope) =>
    Effect.gen(function* () {
      const row = mappingOf(event)
      if (!row) return []
      return row.map(event as never, envelope, yield* contextFor(event, row.needs))
    })

  const schedule = (draft: WebhookEventDraft, endpointId: string, envelope: EventEnvelope) =>
    Effect.gen(function* () {
      const deliveryId = webhookDeliveryId(endpointId, envelope.event_id, draft.key)
      const eventId = webhookEventId(deliveryId)
      const body = JSON.stringify({ event_id: eventId, type: draft.kind, created_at: envelope.occurred_at, data: draft.data })
      const handled = yield* scheduleWebhookDelivery({
        delivery_id: deliveryId, endpoint_id: endpointId, org_id: envelope.org_id, event_id: eventId, type: draft.kind, body,
        ...(draft.signed_links ? { signed_links: draft.signed_links } : {}),
        source_event_id: envelope.event_id, scheduled_at: (yield* Clock).now().toISOString(),
      }, { metadata: { correlation_id: envelope.metadata.correlation_id, causation_id: envelope.event_id, actor: 'webhooks' } })
      if (handled.events.length > 0) options.scheduled({ delivery_id: deliveryId, endpoint_id: endpointId, org_id: envelope.org_id })
    })

  /**
   * The endpoints subscribed to a row's kinds come first: when there is none (most events of most organizations),
   * the row's context is not loaded and its drafts not built. Only a ping is addressed to an endpoint whatever its
   * subscriptions.
   */
  const subscribableKinds = (row: Row) => row.kinds.filter((kind) => kind !== 'ping')
  const nobodyToTell = (row: Row, subscribed: ReadonlyMap<string, readonly string[]>) =>
    !row.kinds.includes('ping') && [...subscribed.values()].every((endpoints) => endpoints.length === 0)

  const fanOut = (event: DomainEvent, envelope: EventEnvelope, row: Row, known: ReadonlyMap<string, readonly string[]> | undefined) =>
    Effect.gen(function* () {
      const kinds = subscribableKinds(row)
      const subscribed = known ?? (kinds.length === 0 ? new Map<string, readonly string[]>() : yield* options.subscribers(envelope.org_id, kinds, envelope.position))
      if (nobodyToTell(row, subscribed)) return
      const drafts = yield* draftsOf(event, envelope)
      for (const draft of drafts) {
        const endpoints = draft.only_endpoint !== undefined ? [draft.only_endpoint] : subscribed.get(draft.kind) ?? []
        yield* Effect.forEach(endpoints, (endpointId) => schedule(draft, endpointId, envelope), { concurrency: 4, discard: true })
      }
    })

  /** What a new endpoint is owed from the events recorded after its creation that the fan-out may have handled already. */
  const catchUpEndpoint = (created: WebhookEndpointCreated, envelope: EventEnvelope) =>
    Effect.gen(function* () {
      let seen = { shown: false, deleted: false }
      for (let tries = 0; !seen.shown && tries < SHOWN_TRIES; tries++) seen = yield* options.endpointShown(created.endpoint_id, envelope.position)
      if (!seen.shown) return yield* Effect.die(new EndpointNotShownYet(`webhook endpoint ${created.endpoint_id} is not in the read model yet`))
      if (seen.deleted) return
      const store = yield* EventStore
      for (let after = envelope.position; ;) {
        const batch = yield* store.readAll(after, CATCH_UP_BATCH)
        for (const recorded of batch) {
          if (recorded.org_id !== created.org_id || !isSourceCategory(recorded.stream)) continue
          const { type, data, ...source } = recorded
          const event = decodeIfKnown(type, data)
          if (!event) continue
          const drafts = yield* draftsOf(event, source)
          const owed = drafts.filter((draft) => draft.only_endpoint === undefined && created.enabled_events.includes(draft.kind))
          yield* Effect.forEach(owed, (draft) => schedule(draft, created.endpoint_id, source), { discard: true })
        }
        // Whatever is recorded after this read finds the endpoint in the read model.
        if (batch.length < CATCH_UP_BATCH) return
        after = batch.at(-1)!.position
      }
    })

  return defineProcessor({
    name: 'processor.webhook-fanout',
    categories: WEBHOOK_SOURCE_CATEGORIES,
    types: FANOUT_TYPES,
    log: options.log,
    handle: async (event, envelope) => {
      if (event._tag === 'WebhookEndpointCreated') return run(catchUpEndpoint(event, envelope))
      // Most events (a job's request and start) have no row: nothing to run for them.
      const row = mappingOf(event)
      if (!row) return
      const kinds = subscribableKinds(row)
      const known = kinds.length === 0 ? new Map<string, readonly string[]>() : options.subscribersNow?.(envelope.org_id, kinds, envelope.position)
      if (known && nobodyToTell(row, known)) return
      return run(fanOut(event, envelope, row, known))
    },
  })
}
