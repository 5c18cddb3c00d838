import { Effect, Layer } from 'effect'
import type { Consumer, ConsumerRunConfig, Kafka, KafkaMessage } from 'kafkajs'
import { DEFAULT_MAX_ATTEMPTS, makeDispatcher, makeSlots } from '../log/dispatcher.js'
import { makeBatchOrOneByOne } from '../log/batch-or-one-by-one.js'
import { scopedEventLog } from '../log/scoped-log.js'
import { EventLog, LogUnavailable, type EventHandler, type EventLogService, type SubscriptionOptions } from '../../ports/event-log.js'
import type { RecordedEvent } from '../../ports/event-store.js'
import { makeBatchGroups } from './batch-groups.js'
import { KafkaCluster } from './client.js'
import { commitGroupOffsets, offsetsAfter, type PartitionOffsets } from './group-offsets.js'
import { makeFinishedOffsets } from './finished-offsets.js'
import { KNOWN_CATEGORIES, makeTopicEnsurer, topicFor, type TopicSettings } from './topics.js'

export interface KafkaLogOptions {
  readonly kafka: Kafka
  readonly topics: TopicSettings
  /** Consumer group of a subscriber: `<groupPrefix>.<subscription name>`. */
  readonly groupPrefix: string
  readonly sessionTimeoutMs?: number
  readonly log?: (message: string, detail?: unknown) => void
}

/**
 * Scale-out fan-out: each subscriber is a consumer group, so running more processes of a role shares the partitions.
 * Within a partition, events of different streams are handled concurrently and one stream's events in order (the key
 * is the stream id); an offset is committed only once it and every offset before it have finished.
 */
export const makeKafkaEventLog = (options: KafkaLogOptions): EventLogService => {
  const log = options.log ?? (() => {})
  const groupOf = (name: string) => `${options.groupPrefix}.${name}`
  const topicsOf = (categories: readonly string[] | undefined) => (categories ?? KNOWN_CATEGORIES).map((c) => topicFor(options.topics.prefix, c))
  const sessionTimeout = options.sessionTimeoutMs ?? 10_000
  // Broker and connection errors are the log being unavailable, a typed failure for the caller to handle.
  const attempt = <A>(work: () => Promise<A>) => Effect.tryPromise({ try: work, catch: (cause) => new LogUnavailable({ cause }) })

  // Where a group must start to resume after a position, for every topic of this deployment (a group may have
  // subscribed to any category). Replay moves every projection to the same position at once: they share one answer.
  const computing = new Map<number, Promise<PartitionOffsets>>()
  const offsetsAfterPosition = (position: number) => {
    const known = computing.get(position)
    if (known) return known
    const answer = (async () => {
      const admin = options.kafka.admin()
      await admin.connect()
      const topics = await admin.listTopics().finally(() => admin.disconnect())
      return offsetsAfter(options.kafka, topics.filter((t) => t.startsWith(`${options.topics.prefix}.`)), position)
    })().finally(() => computing.delete(position))
    computing.set(position, answer)
    return answer
  }

  return {
    setCheckpoint: (name, position) => attempt(async () => {
      await commitGroupOffsets(options.kafka, groupOf(name), await offsetsAfterPosition(position))
    }),
    // Pipelined: a batch's events are handed to the dispatcher of their partition and the consumer fetches on while
    // they run (a fetch waits for every batch of the previous one, so waiting for the handlers would hold all
    // partitions behind the slowest job). Offsets are committed as they finish, each partition in order.
    subscribe: (subscription, handler) => attempt(async () => {
      const concurrency = subscription.concurrency ?? 1
      const types = subscription.types ? new Set(subscription.types) : null
      const slots = makeSlots(concurrency)
      const progress = makeProgress()
      let stopping = false
      const consumer = await connectConsumer(subscription)
      const offsets = makeFinishedOffsets(consumer, log)
      // Kept across rebalances: a message delivered again waits behind its stream's run in progress, not beside it.
      const dispatchers = new Map<string, ReturnType<typeof makeDispatcher>>()
      const dispatcherOf = (topic: string, partition: number) => {
        const key = `${topic}/${partition}`
        let dispatcher = dispatchers.get(key)
        if (!dispatcher) {
          dispatcher = makeDispatcher({
            concurrency, slots,
            ...(subscription.maxAttempts !== undefined ? { maxAttempts: subscription.maxAttempts } : {}),
            handler: progress.track(handler),
            isStopping: () => stopping,
            onCheckpoint: (offset) => offsets.finished(topic, partition, offset),
            onError: reportFailure(subscription, progress, `${topic}/${partition}`),
          })
          dispatchers.set(key, dispatcher)
        }
        return dispatcher
      }
      await run(consumer, subscription, {
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: concurrency,
        eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
          const dispatcher = dispatcherOf(batch.topic, batch.partition)
          await whileBeating(heartbeat, async () => {
            for (const message of batch.messages) {
              if (!isRunning() || isStale() || stopping) break
              const event = parse(message)
              // Events of other types count as handled at once, without a handler run or a slot.
              const relevant = (types === null || types.has(event.type)) && (subscription.accepts === undefined || subscription.accepts(event))
              if (relevant) progress.received(event)
              else progress.finished(event)
              const accepted = dispatcher.dispatch(event, relevant, Number(message.offset))
              if (accepted) await accepted
              // The next fetch starts after what the dispatcher accepted; the commit waits for it to finish.
              resolveOffset(message.offset)
            }
          })
        },
      })
      return {
        checkpoint: progress.checkpoint,
        stop: async () => {
          stopping = true
          await Promise.all([...dispatchers.values()].map((dispatcher) => dispatcher.idle()))
          await offsets.flush()
          await consumer.disconnect()
        },
      }
    }),
    // What one fetch brought from all partitions goes to the handler as one group; while it is handled, the
    // partitions' next batches wait and then form the next group. Offsets are committed once their group was handled,
    // on their own and coalesced, so the next fetch does not wait for a commit per partition.
    subscribeBatches: (subscription, handler) => attempt(async () => {
      const progress = makeProgress()
      let stopping = false
      const consumer = await connectConsumer(subscription)
      const offsets = makeFinishedOffsets(consumer, log)
      const handleGroup = makeBatchOrOneByOne(handler, { subscription, isStopping: () => stopping, onFinished: progress.finished, log })
      const addToGroup = makeBatchGroups(handleGroup)
      await run(consumer, subscription, {
        autoCommit: false,
        eachBatchAutoResolve: false,
        // Every partition's batch joins the group at once.
        partitionsConsumedConcurrently: options.topics.partitions * topicsOf(subscription.categories).length,
        eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
          if (!isRunning() || isStale() || stopping || batch.messages.length === 0) return
          const events = batch.messages.map(parse)
          for (const event of events) progress.received(event)
          await whileBeating(heartbeat, () => addToGroup(events))
          resolveOffset(batch.lastOffset())
          offsets.finished(batch.topic, batch.partition, Number(batch.lastOffset()))
        },
      })
      return {
        checkpoint: progress.checkpoint,
        stop: async () => {
          stopping = true
          await offsets.flush()
          await consumer.disconnect()
        },
      }
    }),
  }

  /** Logs a handler's failure; an event given up on counts as finished (the dispatcher moves past it). */
  function reportFailure(subscription: SubscriptionOptions, progress: Progress, where: string) {
    const maxAttempts = subscription.maxAttempts ?? DEFAULT_MAX_ATTEMPTS
    return (event: RecordedEvent, error: unknown, attempt: number) => {
      const what = `${event.type} at ${event.position} (${where}, attempt ${attempt})`
      if (attempt < maxAttempts) return log(`subscriber ${subscription.name} failed on ${what}`, error)
      progress.finished(event)
      log(`subscriber ${subscription.name} gave up on ${what}`, error)
    }
  }

  async function connectConsumer(subscription: SubscriptionOptions) {
    const admin = options.kafka.admin()
    await admin.connect()
    try {
      await makeTopicEnsurer(admin, options.topics)(subscription.categories ?? KNOWN_CATEGORIES)
    } finally { await admin.disconnect() }
    const consumer = options.kafka.consumer({
      groupId: groupOf(subscription.name),
      sessionTimeout,
      heartbeatInterval: Math.max(500, Math.floor(sessionTimeout / 5)),
      allowAutoTopicCreation: false,
    })
    await consumer.connect()
    return consumer
  }

  /** Subscribes and starts consuming; a consumer that could not start is disconnected before the failure is reported. */
  async function run(consumer: Consumer, subscription: SubscriptionOptions, config: ConsumerRunConfig) {
    await consumer.subscribe({ topics: topicsOf(subscription.categories), fromBeginning: true }).then(() => consumer.run(config)).catch(async (error: unknown) => {
      await consumer.disconnect()
      throw error
    })
  }

  /** Keeps the group membership alive while a batch is being handed over (its handlers may take a while). */
  async function whileBeating<A>(heartbeat: () => Promise<void>, work: () => Promise<A>) {
    const beat = setInterval(() => { heartbeat().catch(() => {}) }, Math.max(500, Math.floor(sessionTimeout / 3)))
    try { return await work() } finally { clearInterval(beat) }
  }
}

const parse = (message: KafkaMessage) => JSON.parse(message.value!.toString()) as RecordedEvent

type Progress = ReturnType<typeof makeProgress>

/** A subscriber's checkpoint: the highest position below which everything it received is finished. */
const makeProgress = () => {
  const inFlight = new Set<number>()
  let finishedMax = 0
  const finished = (event: RecordedEvent) => {
    inFlight.delete(event.position)
    finishedMax = Math.max(finishedMax, event.position)
  }
  return {
    received: (event: RecordedEvent) => { inFlight.add(event.position) },
    finished,
    /** The handler, reporting each event it finished. */
    track: (handler: EventHandler): EventHandler => async (event) => {
      await handler(event)
      finished(event)
    },
    checkpoint: () => (inFlight.size > 0 ? Math.min(...inFlight) - 1 : finishedMax),
  }
}

/** The scale-out event log on the configured cluster; releasing it stops any consumer still running. */
export const KafkaEventLogLive = (log: (message: string, detail?: unknown) => void) => Layer.scoped(EventLog, Effect.gen(function* () {
  const cluster = yield* KafkaCluster
  return yield* scopedEventLog(makeKafkaEventLog({
    kafka: cluster.client, topics: cluster.topics, groupPrefix: cluster.groupPrefix, sessionTimeoutMs: cluster.sessionTimeoutMs, log,
  }))
}))
