import { Effect, Layer } from 'effect'
import type { JobSpec } from '../domain/job/spec.js'
import { sealSpecSecrets } from '../domain/job/spec-secrets.js'
import type { SecretBox } from '../domain/secret-box.js'
import { EventStore, type EventStoreService } from '../ports/event-store.js'

/**
 * Seals job secrets at the one place every event is recorded: a JobRequested (and a monitor's job) is appended with its customer proxy
 * password encrypted, whoever submitted it (API, monitors, CLI, replays), so the event store and read models never
 * hold it. Replaces the EventStore it is given with the sealing one.
 */
export const SealingEventStore = (box: SecretBox) => Layer.effect(EventStore, Effect.map(EventStore, (store): EventStoreService => ({
  ...store,
  append: (stream, events, expected) => store.append(stream, events.map((event) => {
    if (event.type === 'JobRequested') return { ...event, data: { ...event.data, spec: sealSpecSecrets(event.data.spec as JobSpec, box) } }
    // A monitor's job (MonitorCreated, MonitorUpdated) is the spec its runs submit.
    if (event.data.job !== undefined && event.type.startsWith('Monitor')) return { ...event, data: { ...event.data, job: sealSpecSecrets(event.data.job as JobSpec, box) } }
    return event
  }), expected),
})))
