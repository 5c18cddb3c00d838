import { randomUUID } from 'node:crypto'
import { Effect, type Either } from 'effect'
import { encodeEvent } from '../../domain/events.js'
import type { DomainEvent } from '../../domain/streams.js'
import { makeMemoryBlobStore } from '../../infra/memory/blob-store.js'
import { makeMemoryDocumentStore } from '../../infra/memory/document-store.js'
import { makeMemoryEventStore } from '../../infra/memory/event-store.js'
import { BlobStore, type BlobStoreService } from '../../ports/blob-store.js'
import { DocumentStore, type DocumentStoreService } from '../../ports/document-store.js'
import { EventStore, type EventStoreService, type NewEvent } from '../../ports/event-store.js'

/** The stores of one test, in memory: fresh per call, so tests never see each other's events or documents. */
export const memoryServices = (events: EventStoreService = makeMemoryEventStore()) =>
  storeServices(events, makeMemoryDocumentStore(), makeMemoryBlobStore())

/** Runs effects on the given stores: the in-memory ones, or real adapters (SQLite, a local folder) for tests run on both. */
export const storeServices = (events: EventStoreService, docs: DocumentStoreService, blobs: BlobStoreService) => {
  const provide = <A, E>(effect: Effect.Effect<A, E, Stores>) =>
    effect.pipe(Effect.provideService(EventStore, events), Effect.provideService(DocumentStore, docs), Effect.provideService(BlobStore, blobs))
  return {
    events, docs, blobs,
    /** Runs an effect needing any of the three stores. */
    run: <A, E>(effect: Effect.Effect<A, E, Stores>): Promise<A> => Effect.runPromise(provide(effect)),
    /** Runs an effect and answers its success or its typed failure. */
    attempt: <A, E>(effect: Effect.Effect<A, E, Stores>): Promise<Either.Either<A, E>> => Effect.runPromise(Effect.either(provide(effect))),
  }
}

type Stores = EventStore | DocumentStore | BlobStore

export const TEST_METADATA = { correlation_id: 'corr-test', causation_id: null, actor: 'test' } as const

/** The stored form of domain events, as a command handler would append them. */
export const newEvents = (orgId: string, events: readonly DomainEvent[], occurredAt = '2024-05-01T12:00:00.000Z'): NewEvent[] =>
  events.map((event) => ({ event_id: randomUUID(), ...encodeEvent(event), org_id: orgId, occurred_at: occurredAt, metadata: TEST_METADATA }))
