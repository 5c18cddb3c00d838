import { Context, Data, type Effect } from 'effect'
import type { RecordedEvent, StoreUnavailable } from './event-store.js'

export interface SubscriptionOptions {
  /** Durable name: the checkpoint (embedded) or consumer group (scale-out). */
  readonly name: string
  /** Stream categories to receive (`job`, `org`, ...); all when omitted. */
  readonly categories?: readonly string[]
  /**
   * Event types the handler reacts to (of those categories); all when omitted. A log may pass over the others without
   * handing them to the handler (they count as handled at once), so a handler must ignore any other type it gets.
   */
  readonly types?: readonly string[]
  /**
   * Of the events of those types, the ones the handler reacts to, told from the recorded event alone (no read, no
   * decoding); all when omitted. A log may pass over the others as it does other types, so a handler must ignore them too.
   */
  readonly accepts?: (event: RecordedEvent) => boolean
  /** Events of different streams handled at once; one stream's events are always handled in order. */
  readonly concurrency?: number
  /**
   * Attempts per event before it is given up on and logged (default 5), so one poison event cannot stall the log.
   * The relay passes Infinity: an event it skipped would be missing from Kafka for good.
   */
  readonly maxAttempts?: number
}

export interface Subscription {
  readonly stop: () => Promise<void>
  /** Position of the last event whose handling finished, with everything before it also finished. */
  readonly checkpoint: () => number
}

export type EventHandler = (event: RecordedEvent) => Promise<void>

/**
 * Handles events delivered together (each stream's events in log order; events of different streams in any order),
 * resolving once every one is handled: the subscription moves past them only then. A batch that fails is handed over
 * again one event at a time, so one poison event is given up on (after `maxAttempts`) and the rest still handled.
 */
export type BatchHandler = (events: readonly RecordedEvent[]) => Promise<void>

/**
 * A reader that keeps its position itself, saved together with its own writes (exactly-once): it is handed every
 * event after `from`, in log order, a batch at a time. A rejected batch is handed again after a pause.
 */
export interface BatchReaderOptions {
  /** For the log's own messages. */
  readonly name: string
  readonly from: number
}

/** The log's own servers (Kafka brokers) could not be reached or refused an operation. */
export class LogUnavailable extends Data.TaggedError('LogUnavailable')<{ readonly cause: unknown }> {}

/** Why subscribing or moving a checkpoint failed: the log's servers, or the store holding the events or checkpoints. */
export type EventLogError = LogUnavailable | StoreUnavailable

/** The ordered log fanned out to processors and projections. At-least-once: handlers must be idempotent. */
export interface EventLogService {
  readonly subscribe: (options: SubscriptionOptions, handler: EventHandler) => Effect.Effect<Subscription, EventLogError>
  /**
   * Like `subscribe`, but hands over what arrived together (on Kafka: what one fetch brought from every partition),
   * so a handler can apply many events for the price of a few round trips. Logs without such batches omit it.
   */
  readonly subscribeBatches?: (options: SubscriptionOptions, handler: BatchHandler) => Effect.Effect<Subscription, EventLogError>
  /** Moves a subscriber's durable checkpoint (replay rebuilds a read model, then resumes its projector from the end). */
  readonly setCheckpoint: (name: string, position: number) => Effect.Effect<void, EventLogError>
  /** Catch-up logs only: the durable checkpoint of a subscriber name (0 when it has none). */
  readonly checkpointOf?: (name: string) => Effect.Effect<number, EventLogError>
  /**
   * Catch-up logs only: a reader of the whole log keeping its own position (see BatchReaderOptions). Its handler
   * resolves once the batch is durably handled, or rejects to have it handed again after a pause.
   */
  readonly readBatches?: (options: BatchReaderOptions, handler: (events: readonly RecordedEvent[]) => Promise<void>) => Effect.Effect<Subscription, EventLogError>
}

/** The log processors and `ordering: 'stream'` projections read: Kafka on scale-out, the store's own log embedded. */
export class EventLog extends Context.Tag('EventLog')<EventLog, EventLogService>() {}

/**
 * The event store's own ordered log (catch-up with durable checkpoints): what the relay publishes to Kafka and what
 * projections needing the total order (`ordering: 'log'`) read. On the embedded profile it is also the EventLog.
 */
export class StoreLog extends Context.Tag('StoreLog')<StoreLog, EventLogService>() {}
