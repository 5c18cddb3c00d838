import { Effect, Layer } from 'effect'
import type { JobSpec } from '../domain/job/spec.js'
import { sealSpecSecrets } from '../domain/job/spec-secrets.js'
import { SecretBox } from '../domain/secret-box.js'
import { EventStore, type EventStoreService, type NewEvent } from '../ports/event-store.js'

/** Events whose `secret` field is a webhook signing secret. */
const WEBHOOK_SECRET_EVENTS = new Set(['WebhookEndpointCreated', 'WebhookSecretRotated'])

const sealed = (event: NewEvent, box: SecretBox): NewEvent => {
  if (event.type === 'JobRequested') return { ...event, data: { ...event.data, spec: sealSpecSecrets(event.data.spec as JobSpec, box) } }
  // A monitor's job (MonitorCreated, MonitorUpdated) is the spec its runs submit.
  if (event.data.job !== undefined && event.type.startsWith('Monitor')) return { ...event, data: { ...event.data, job: sealSpecSecrets(event.data.job as JobSpec, box) } }
  const secret = event.data.secret
  if (WEBHOOK_SECRET_EVENTS.has(event.type) && typeof secret === 'string' && !SecretBox.isSealed(secret)) {
    return { ...event, data: { ...event.data, secret: box.seal(secret) } }
  }
  return event
}

/**
 * Seals secrets at the one place every event is recorded: a JobRequested (and a monitor's job) is appended with its
 * customer proxy password encrypted, and a webhook endpoint's signing secret likewise, whoever appends them (API, monitors, CLI,
 * replays), so the event store and read models never hold them. Replaces the EventStore it is given with the
 * sealing one.
 */
export const SealingEventStore = (box: SecretBox) => Layer.effect(EventStore, Effect.map(EventStore, (store): EventStoreService => ({
  ...store,
  append: (stream, events, expected) => store.append(stream, events.map((event) => sealed(event, box)), expected),
  ...(store.appendNow ? { appendNow: (stream, events, expected) => store.appendNow!(stream, events.map((event) => sealed(event, box)), expected) } : {}),
})))
