import { Effect, Layer } from 'effect'
import type { JobSpec } from '../domain/job/spec.js'
import { sealSpecSecrets } from '../domain/job/spec-secrets.js'
import type { SecretBox } from '../domain/secret-box.js'
import { EventStore, type EventStoreService } from '../ports/event-store.js'

/**
 * Seals job secrets at the one place every event is recorded: a JobRequested is appended with its customer proxy
 * password encrypted, whoever submitted it (API, monitors, CLI, replays), so the event store and read models never
 * hold it. Replaces the EventStore it is given with the sealing one.
 */
export const SealingEventStore = (box: SecretBox) => Layer.effect(EventStore, Effect.map(EventStore, (store): EventStoreService => ({
  ...store,
  append: (stream, events, expected) => store.append(stream, events.map((event) => event.type === 'JobRequested'
    ? { ...event, data: { ...event.data, spec: sealSpecSecrets(event.data.spec as JobSpec, box) } }
    : event), expected),
})))
