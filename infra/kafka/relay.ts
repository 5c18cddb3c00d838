import { Effect, type Scope } from 'effect'
import { CompressionTypes, type Kafka, type Producer } from 'kafkajs'
import { LogUnavailable, type EventLogError, type EventLogService, type Subscription } from '../../ports/event-log.js'
import type { RecordedEvent } from '../../ports/event-store.js'
import { categoryOf, makeTopicEnsurer, toMessage, topicFor, KNOWN_CATEGORIES, type TopicSettings } from './topics.js'

/**
 * Sends messages in small batches: handlers of different streams add to the open batch and wait for its ack.
 * One stream's events are handed over one at a time (the subscription keeps stream order), so per-key order holds.
 */
const makeBatchSender = (producer: Producer, prefix: string, lingerMs: number) => {
  let open: { events: RecordedEvent[]; done: Promise<void> } | null = null
  return (event: RecordedEvent): Promise<void> => {
    if (!open) {
      const batch: { events: RecordedEvent[]; done: Promise<void> } = { events: [], done: Promise.resolve() }
      batch.done = new Promise<void>((resolve) => setTimeout(resolve, lingerMs)).then(async () => {
        open = null
        const byTopic = new Map<string, RecordedEvent[]>()
        for (const e of batch.events) {
          const topic = topicFor(prefix, categoryOf(e))
          byTopic.set(topic, [...(byTopic.get(topic) ?? []), e])
        }
        await producer.sendBatch({
          acks: -1,
          compression: CompressionTypes.None,
          topicMessages: [...byTopic].map(([topic, events]) => ({ topic, messages: events.map(toMessage) })),
        })
      })
      open = batch
    }
    open.events.push(event)
    return open.done
  }
}

export interface RelayOptions {
  readonly kafka: Kafka
  readonly topics: TopicSettings
  /** The event store's own ordered log (catch-up subscription with a durable checkpoint). */
  readonly source: EventLogService
  readonly lingerMs?: number
}

/**
 * Publishes every event of the store's log to Kafka, in order per stream, at least once, until the scope closes
 * (the subscription stops first, then the producer disconnects).
 */
export const relayToKafka = (options: RelayOptions): Effect.Effect<Subscription, EventLogError, Scope.Scope> => Effect.gen(function* () {
  const connect = <A extends { connect: () => Promise<void>; disconnect: () => Promise<void> }>(client: A) => Effect.acquireRelease(
    Effect.tryPromise({ try: () => client.connect(), catch: (cause) => new LogUnavailable({ cause }) }).pipe(Effect.as(client)),
    () => Effect.promise(() => client.disconnect()),
  )
  const [producer, admin] = yield* Effect.all([
    connect(options.kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false })),
    connect(options.kafka.admin()),
  ], { concurrency: 2 })
  const ensureTopics = makeTopicEnsurer(admin, options.topics)
  yield* Effect.tryPromise({ try: () => ensureTopics(KNOWN_CATEGORIES), catch: (cause) => new LogUnavailable({ cause }) })
  const send = makeBatchSender(producer, options.topics.prefix, options.lingerMs ?? 5)
  return yield* Effect.acquireRelease(
    options.source.subscribe({ name: 'relay', concurrency: 256, maxAttempts: Infinity }, async (event) => {
      await ensureTopics([categoryOf(event)])
      await send(event)
    }),
    (subscription) => Effect.promise(() => subscription.stop()),
  )
})
