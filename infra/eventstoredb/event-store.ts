import { Effect, Layer } from 'effect'
import {
  ANY, EventStoreDBClient, jsonEvent, NO_STREAM, START, StreamNotFoundError, WrongExpectedVersionError,
  type AllStreamResolvedEvent, type ResolvedEvent,
} from '@eventstore/db-client'
import {
  EventStore, StoreUnavailable, WrongExpectedRevision, type EventStoreService, type ExpectedRevision, type RecordedEvent,
} from '../../ports/event-store.js'

/**
 * The event store of record on EventStoreDB / KurrentDB. Kept as close to the official client's documented API as
 * possible: appendToStream with expectedRevision, readStream, readAll over $all without system events.
 * Our envelope's org_id and occurred_at travel in the event metadata.
 */
const makeEventStoreDbStore = (client: EventStoreDBClient): EventStoreService => {
  const toRecorded = (resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent => {
    const e = resolved.event!
    const meta = e.metadata as { org_id: string; occurred_at: string; correlation_id: string; causation_id: string | null; actor: string }
    const { org_id, occurred_at, ...metadata } = meta
    return {
      event_id: e.id, type: e.type, stream: e.streamId, revision: Number(e.revision),
      position: Number(e.position?.commit ?? 0n), org_id, occurred_at,
      data: e.data as Record<string, unknown>, metadata,
    }
  }

  const readStreamAll = async (stream: string): Promise<RecordedEvent[]> => {
    const out: RecordedEvent[] = []
    try {
      for await (const resolved of client.readStream(stream, { fromRevision: START })) out.push(toRecorded(resolved))
    } catch (e) {
      if (e instanceof StreamNotFoundError) return []
      throw e
    }
    return out
  }

  const expectedRevision = (expected: ExpectedRevision) =>
    expected === 'no_stream' ? NO_STREAM : expected === 'any' ? ANY : BigInt(expected)

  return {
    append: (stream, events, expected) => Effect.tryPromise({
      try: async () => {
        try {
          const result = await client.appendToStream(stream, events.map((e) => jsonEvent({
            id: e.event_id, type: e.type, data: e.data, metadata: { ...e.metadata, org_id: e.org_id, occurred_at: e.occurred_at },
          })), { expectedRevision: expectedRevision(expected) })
          return { revision: Number(result.nextExpectedRevision), position: Number(result.position?.commit ?? 0n) }
        } catch (e) {
          if (!(e instanceof WrongExpectedVersionError)) throw e
          // Idempotent retry: the events are already there.
          const existing = await readStreamAll(stream)
          const last = existing[existing.length - 1]
          if (last && events.length > 0 && existing.some((r) => r.event_id === events[0]!.event_id)) return { revision: last.revision, position: last.position }
          throw new WrongExpectedRevision({ stream, expected, actual: last ? last.revision : 'no_stream' })
        }
      },
      catch: (e) => (e instanceof WrongExpectedRevision ? e : new StoreUnavailable({ cause: e })),
    }),
    readStream: (stream) => Effect.tryPromise({ try: () => readStreamAll(stream), catch: (cause) => new StoreUnavailable({ cause }) }),
    readAll: (after, limit) => Effect.tryPromise({
      try: async () => {
        const out: RecordedEvent[] = []
        const fromPosition = after === 0 ? START : { commit: BigInt(after), prepare: BigInt(after) }
        // No maxCount: system events are skipped, so read on until `limit` of ours; breaking cancels the stream.
        for await (const resolved of client.readAll({ fromPosition })) {
          if (!resolved.event || resolved.event.type.startsWith('$') || resolved.event.streamId.startsWith('$')) continue
          const recorded = toRecorded(resolved)
          if (recorded.position > after) out.push(recorded)
          if (out.length === limit) break
        }
        return out
      },
      catch: (cause) => new StoreUnavailable({ cause }),
    }),
  }
}

/** The client connects lazily, on its first call, and is disposed when the scope closes. */
export const eventStoreDbStore = (connectionString: string) => Effect.map(
  Effect.acquireRelease(
    Effect.sync(() => EventStoreDBClient.connectionString([connectionString] as unknown as TemplateStringsArray)),
    (client) => Effect.promise(() => client.dispose()),
  ),
  makeEventStoreDbStore,
)

export const EventStoreDbLive = (connectionString: string) => Layer.scoped(EventStore, eventStoreDbStore(connectionString))
