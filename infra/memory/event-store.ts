import { EventEmitter } from 'node:events'
import { Effect, Layer } from 'effect'
import {
  EventStore, WrongExpectedRevision, storeWorkNow, type StoreUnavailable,
  type AppendResult, type EventStoreService, type ExpectedRevision, type NewEvent, type RecordedEvent,
} from '../../ports/event-store.js'

/** Stored as JSON text, as the durable adapters do, so no caller can change a recorded event through a shared object. */
const freeze = (event: RecordedEvent): string => JSON.stringify(event)
const thaw = (json: string): RecordedEvent => JSON.parse(json) as RecordedEvent

/** The in-memory event store plus the signal raised after every append (the catch-up log wakes on it). */
export interface MemoryEventStore extends EventStoreService {
  readonly appended: EventEmitter
}

/**
 * The event store in one process's memory, for fast tests: the same semantics as the SQLite adapter (expected
 * revision, typed conflict, idempotent append by event id, global positions). Appends run synchronously, so
 * concurrent appends are serialized as a SQLite transaction would serialize them.
 */
export const makeMemoryEventStore = (): MemoryEventStore => {
  const log: string[] = []
  const streams = new Map<string, number[]>()
  const streamOfEventId = new Map<string, string>()
  const appended = new EventEmitter()
  appended.setMaxListeners(0)

  const head = (stream: string) => {
    const indexes = streams.get(stream)
    if (!indexes || indexes.length === 0) return null
    return { revision: indexes.length - 1, position: indexes[indexes.length - 1]! + 1 }
  }

  const appendInMemory = (stream: string, events: readonly NewEvent[], expected: ExpectedRevision): AppendResult => {
    const current = head(stream)
    const duplicateIn = events.length > 0 ? streamOfEventId.get(events[0]!.event_id) : undefined
    if (duplicateIn === stream && current) return current
    const matches = expected === 'any' || (expected === 'no_stream' ? !current : current?.revision === expected)
    if (!matches) throw new WrongExpectedRevision({ stream, expected, actual: current ? current.revision : 'no_stream' })
    const ids = new Set<string>()
    for (const e of events) {
      // The SQLite adapter's unique index refuses a known event id in another stream (or twice in one batch).
      if (streamOfEventId.has(e.event_id) || ids.has(e.event_id)) throw new Error(`event id ${e.event_id} is already recorded`)
      ids.add(e.event_id)
    }
    let revision = current ? current.revision : -1
    let position = current?.position ?? 0
    const indexes = streams.get(stream) ?? []
    for (const e of events) {
      revision += 1
      position = log.length + 1
      log.push(freeze({ ...e, stream, revision, position }))
      indexes.push(position - 1)
      streamOfEventId.set(e.event_id, stream)
    }
    streams.set(stream, indexes)
    return { revision, position }
  }

  const appendNow = (stream: string, events: readonly NewEvent[], expected: ExpectedRevision): AppendResult => {
    const result = storeWorkNow(() => appendInMemory(stream, events, expected))
    appended.emit('append')
    return result
  }
  const readStreamNow = (stream: string) => (streams.get(stream) ?? []).map((i) => thaw(log[i]!))

  return {
    appended,
    append: (stream, events, expected) => Effect.try({ try: () => appendNow(stream, events, expected), catch: (e) => e as WrongExpectedRevision | StoreUnavailable }),
    readStream: (stream) => Effect.sync(() => readStreamNow(stream)),
    readAll: (after, limit) => Effect.sync(() => log.slice(Math.max(0, after), Math.max(0, after) + Math.max(0, limit)).map(thaw)),
    appendNow,
    readStreamNow,
  }
}

export const MemoryEventStoreLayer = Layer.sync(EventStore, makeMemoryEventStore)
