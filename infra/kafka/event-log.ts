import { randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import type { Kafka } from 'kafkajs'
import { makeDispatcher, makeSlots } from '../log/dispatcher.js'
import type { EventLogService } from '../ports/event-log.js'
import type { RecordedEvent } from '../ports/event-store.js'
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
 * For each partition of the topics, the offset of the first message whose log position is above `position`
 * (the high watermark when there is none): where a group must start to resume right after that position.
 */
const offsetsAfter = async (kafka: Kafka, topics: readonly string[], position: number) => {
  const admin = kafka.admin()
  await admin.connect()
  const result = new Map<string, Map<number, string>>()
  try {
    for (const topic of topics) {
      const watermarks = await admin.fetchTopicOffsets(topic)
      const found = new Map(watermarks.map((w) => [w.partition, w.high]))
      const remaining = new Set(watermarks.filter((w) => Number(w.high) > Number(w.low)).map((w) => w.partition))
      if (position > 0 && remaining.size > 0) {
        const scanner = kafka.consumer({ groupId: `scan-${randomUUID()}` })
        await scanner.connect()
        await scanner.subscribe({ topics: [topic], fromBeginning: true })
        const highs = new Map(watermarks.map((w) => [w.partition, Number(w.high)]))
        await new Promise<void>((resolve, reject) => {
          scanner.run({
            eachMessage: async ({ partition, message }) => {
              if (!remaining.has(partition)) return
              const event = JSON.parse(message.value!.toString()) as RecordedEvent
              if (event.position > position) { found.set(partition, message.offset); remaining.delete(partition) }
              else if (Number(message.offset) + 1 >= highs.get(partition)!) remaining.delete(partition)
              if (remaining.size === 0) resolve()
            },
          }).catch(reject)
        })
        await scanner.disconnect()
      } else if (position === 0) {
        for (const w of watermarks) found.set(w.partition, w.low)
      }
      result.set(topic, found)
    }
  } finally { await admin.disconnect() }
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

  return {
    setCheckpoint: (name, position) => Effect.promise(async () => {
      const admin = options.kafka.admin()
      await admin.connect()
      try {
        // Every topic of this deployment: the group may have subscribed to any category.
        const topics = (await admin.listTopics()).filter((t) => t.startsWith(`${options.topics.prefix}.`))
        for (const [topic, partitions] of await offsetsAfter(options.kafka, topics, position)) {
          await admin.setOffsets({ groupId: groupOf(name), topic, partitions: [...partitions].map(([partition, offset]) => ({ partition, offset })) })
        }
      } finally { await admin.disconnect() }
    }),
    subscribe: (subscription, handler) => Effect.promise(async () => {
      const admin = options.kafka.admin()
      await admin.connect()
      await makeTopicEnsurer(admin, options.topics)(subscription.categories ?? KNOWN_CATEGORIES)
      await admin.disconnect()
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
      await consumer.subscribe({ topics: topicsOf(subscription.categories), fromBeginning: true })
      await consumer.run({
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
