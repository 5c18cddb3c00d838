import { randomUUID } from 'node:crypto'
import { Effect, Layer } from 'effect'
import type { Kafka } from 'kafkajs'
import { makeDispatcher, makeSlots } from '../log/dispatcher.js'
import { scopedEventLog } from '../log/scoped-log.js'
import { EventLog, LogUnavailable, type EventLogService } from '../../ports/event-log.js'
import type { RecordedEvent } from '../../ports/event-store.js'
import { KafkaCluster } from './client.js'
import { KNOWN_CATEGORIES, makeTopicEnsurer, topicFor, type TopicSettings } from './topics.js'

export interface KafkaLogOptions {
  readonly kafka: Kafka
  readonly topics: TopicSettings
  /** Consumer group of a subscriber: `<groupPrefix>.<subscription name>`. */
  readonly groupPrefix: string
  readonly sessionTimeoutMs?: number
  readonly log?: (message: string, detail?: unknown) => void
}

type PartitionOffsets = Map<string, Map<number, string>>

/**
 * Commits offsets for a consumer group with no running member, every topic at once: one consumer joins the group,
 * seeks each partition while paused and leaves at its first fetch, which commits the seeks (what kafkajs'
 * `admin.setOffsets` does for one topic per join: a join per topic made moving a group slow).
 */
const commitGroupOffsets = async (kafka: Kafka, groupId: string, offsets: PartitionOffsets) => {
  const topics = [...offsets].filter(([, parts]) => parts.size > 0).map(([topic]) => topic)
  if (topics.length === 0) return
  const consumer = kafka.consumer({ groupId })
  await consumer.connect()
  try {
    await consumer.subscribe({ topics, fromBeginning: true })
    const { state } = await consumer.describeGroup()
    if (state !== 'Empty' && state !== 'Dead') throw new Error(`consumer group ${groupId} has running members (${state}): stop them before moving it`)
    await new Promise<void>((resolve, reject) => {
      consumer.on(consumer.events.FETCH, () => { consumer.stop().then(resolve, reject) })
      consumer.run({ eachBatchAutoResolve: false, eachBatch: async () => {} }).catch(reject)
      consumer.pause(topics.map((topic) => ({ topic })))
      for (const topic of topics) {
        for (const [partition, offset] of offsets.get(topic)!) consumer.seek({ topic, partition, offset })
      }
    })
  } finally { await consumer.disconnect() }
}

/**
 * Reads messages from the given start offsets with a throw-away consumer group, until `wanted` says each partition is
 * settled. Starting offsets are committed for the new group before it joins, so it reads exactly from there.
 */
const scanFrom = async (kafka: Kafka, all: PartitionOffsets, visit: (topic: string, partition: number, offset: string, event: RecordedEvent) => boolean) => {
  const starts = new Map([...all].filter(([, parts]) => parts.size > 0))
  const pending = new Set([...starts].flatMap(([topic, parts]) => [...parts.keys()].map((p) => `${topic}/${p}`)))
  if (pending.size === 0) return
  const groupId = `scan-${randomUUID()}`
  await commitGroupOffsets(kafka, groupId, starts)
  const scanner = kafka.consumer({ groupId })
  await scanner.connect()
  await scanner.subscribe({ topics: [...starts.keys()] })
  await new Promise<void>((resolve, reject) => {
    scanner.run({
      eachMessage: async ({ topic, partition, message }) => {
        const key = `${topic}/${partition}`
        if (!pending.has(key)) return
        if (visit(topic, partition, message.offset, JSON.parse(message.value!.toString()) as RecordedEvent)) pending.delete(key)
        if (pending.size === 0) resolve()
      },
    }).catch(reject)
  })
  await scanner.disconnect()
}

/**
 * For each partition of the topics, the offset of the first message whose log position is above `position`
 * (the high watermark when there is none): where a group must start to resume right after that position.
 * Reads the last message of each partition first, so resuming at the end (what replay does) costs one read each.
 */
const offsetsAfter = async (kafka: Kafka, topics: readonly string[], position: number): Promise<PartitionOffsets> => {
  const admin = kafka.admin()
  await admin.connect()
  const result: PartitionOffsets = new Map()
  const lastMessages: PartitionOffsets = new Map()
  const lows = new Map<string, string>()
  try {
    for (const topic of topics) {
      const watermarks = await admin.fetchTopicOffsets(topic)
      result.set(topic, new Map(watermarks.map((w) => [w.partition, position === 0 ? w.low : w.high])))
      if (position === 0) continue
      const nonEmpty = watermarks.filter((w) => Number(w.high) > Number(w.low))
      lastMessages.set(topic, new Map(nonEmpty.map((w) => [w.partition, String(Number(w.high) - 1)])))
      for (const w of nonEmpty) lows.set(`${topic}/${w.partition}`, w.low)
    }
  } finally { await admin.disconnect() }
  if (position === 0) return result
  // Partitions whose last message is beyond the position need a scan from their start.
  const rescan: PartitionOffsets = new Map()
  await scanFrom(kafka, lastMessages, (topic, partition, _offset, event) => {
    if (event.position > position) rescan.set(topic, new Map([...(rescan.get(topic) ?? []), [partition, lows.get(`${topic}/${partition}`)!]]))
    return true
  })
  await scanFrom(kafka, rescan, (topic, partition, offset, event) => {
    if (event.position <= position) return false
    result.get(topic)!.set(partition, offset)
    return true
  })
  return result
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
    subscribe: (subscription, handler) => attempt(async () => {
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
      const concurrency = subscription.concurrency ?? 1
      const slots = makeSlots(concurrency)
      let stopping = false
      const inFlight = new Set<number>()
      let finishedMax = 0
      await consumer.connect()
      const running = consumer.subscribe({ topics: topicsOf(subscription.categories), fromBeginning: true }).then(() => consumer.run({
        autoCommit: true,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: concurrency,
        eachBatch: async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }) => {
          const beat = setInterval(() => { heartbeat().catch(() => {}) }, Math.max(500, Math.floor(sessionTimeout / 3)))
          const dispatcher = makeDispatcher({
            concurrency, slots,
            handler: async (event) => {
              await handler(event)
              inFlight.delete(event.position)
              finishedMax = Math.max(finishedMax, event.position)
            },
            isStopping: () => stopping,
            onCheckpoint: (offset) => resolveOffset(String(offset)),
            onError: (event, error, attempt) => attempt >= 5 ? (inFlight.delete(event.position), log(`subscriber ${subscription.name} gave up on ${event.type} at ${event.position}`, error)) : log(`subscriber ${subscription.name} failed on ${event.type} at ${event.position} (${batch.topic}/${batch.partition}, attempt ${attempt})`, error),
          })
          try {
            for (const message of batch.messages) {
              if (!isRunning() || isStale() || stopping) break
              const event = JSON.parse(message.value!.toString()) as RecordedEvent
              inFlight.add(event.position)
              await dispatcher.dispatch(event, true, Number(message.offset))
            }
            await dispatcher.idle()
            await commitOffsetsIfNecessary()
          } finally {
            clearInterval(beat)
          }
        },
      }))
      // A consumer that could not start is disconnected before the failure is reported.
      await running.catch(async (error: unknown) => {
        await consumer.disconnect()
        throw error
      })
      return {
        // The highest position below which everything this subscriber received is finished.
        checkpoint: () => (inFlight.size > 0 ? Math.min(...inFlight) - 1 : finishedMax),
        stop: async () => {
          stopping = true
          await consumer.disconnect()
        },
      }
    }),
  }
}

/** The scale-out event log on the configured cluster; releasing it stops any consumer still running. */
export const KafkaEventLogLive = (log: (message: string, detail?: unknown) => void) => Layer.scoped(EventLog, Effect.gen(function* () {
  const cluster = yield* KafkaCluster
  return yield* scopedEventLog(makeKafkaEventLog({
    kafka: cluster.client, topics: cluster.topics, groupPrefix: cluster.groupPrefix, sessionTimeoutMs: cluster.sessionTimeoutMs, log,
  }))
}))
