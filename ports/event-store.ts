import { Context, Data, type Effect, type Scope } from 'effect'

export type ExpectedRevision = 'no_stream' | 'any' | number

export interface EventMetadata {
  readonly correlation_id: string
  readonly causation_id: string | null
  readonly actor: string
}

/** An event about to be appended. */
export interface NewEvent {
  readonly event_id: string
  readonly type: string
  readonly org_id: string
  readonly occurred_at: string
  readonly data: Record<string, unknown>
  readonly metadata: EventMetadata
}

/** The envelope of ARCHITECTURE.md: revision is per stream (0-based), position is global and ordered. */
export interface RecordedEvent extends NewEvent {
  readonly stream: string
  readonly revision: number
  readonly position: number
}

/** What a subscriber gets besides the decoded event: where and when it was recorded, by whom and why. */
export type EventEnvelope = Omit<RecordedEvent, 'type' | 'data'>

export interface AppendResult {
  /** Revision of the stream's last event after the append. */
  readonly revision: number
  /** Global position of the last appended event. */
  readonly position: number
}

export class WrongExpectedRevision extends Data.TaggedError('WrongExpectedRevision')<{
  readonly stream: string
  readonly expected: ExpectedRevision
  readonly actual: number | 'no_stream'
}> {}

export class StoreUnavailable extends Data.TaggedError('StoreUnavailable')<{ readonly cause: unknown }> {}

/**
 * Runs a store's work at once, for its `...Now` entries: a revision conflict or StoreUnavailable is thrown as it is,
 * anything else thrown as StoreUnavailable, which is what the store's effects fail with.
 */
export const storeWorkNow = <A>(work: () => A): A => {
  try {
    return work()
  } catch (cause) {
    throw cause instanceof StoreUnavailable || cause instanceof WrongExpectedRevision ? cause : new StoreUnavailable({ cause })
  }
}

export interface EventStoreService {
  /**
   * Appends atomically. Appending events whose event_ids are already in the stream is a no-op
   * that answers the stream's current revision (idempotent retries).
   */
  readonly append: (stream: string, events: readonly NewEvent[], expected: ExpectedRevision) => Effect.Effect<AppendResult, WrongExpectedRevision | StoreUnavailable>
  readonly readStream: (stream: string) => Effect.Effect<readonly RecordedEvent[], StoreUnavailable>
  /** Events with position greater than `after`, in log order. */
  readonly readAll: (after: number, limit: number) => Effect.Effect<readonly RecordedEvent[], StoreUnavailable>
  /**
   * Optional, for stores that answer in the calling turn (SQLite, memory): `append` done at once, without an effect
   * run, throwing what `append` fails with (WrongExpectedRevision, StoreUnavailable). A store has both `...Now`
   * entries or neither; callers fall back to the effects without them (EventStoreDB).
   */
  readonly appendNow?: (stream: string, events: readonly NewEvent[], expected: ExpectedRevision) => AppendResult
  /** Optional: `readStream` done at once, throwing StoreUnavailable (see appendNow). */
  readonly readStreamNow?: (stream: string) => readonly RecordedEvent[]
  /**
   * Optional: the log from `after` on, `limit` events at a time, read ahead of the caller on a thread of its own while
   * the scope lasts (SQLite; a whole-log reader such as replay). Each batch is as readAll answers it.
   */
  readonly readAllAhead?: (after: number, limit: number) => Effect.Effect<LogReader, never, Scope.Scope>
}

/** Reads the log in order, a batch at a time: `next` answers the next batch, empty once the log's end is reached. */
export interface LogReader {
  readonly next: Effect.Effect<readonly RecordedEvent[], StoreUnavailable>
}

export class EventStore extends Context.Tag('EventStore')<EventStore, EventStoreService>() {}
