import { Effect } from 'effect'
import type { Kafka } from 'kafkajs'
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

const MAX_ATTEMPTS = 5

/**
 * Scale-out fan-out: each subscriber is a consumer group, so running more processes of a role shares the partitions.
 * Partitions are consumed concurrently and each partition in order (key = stream id, so one stream stays in order);
 * an offset is committed only after its handler finished.
 */
export const makeKafkaEventLog = (options: KafkaLogOptions): EventLogService => {
  const log = options.log ?? (() => {})
  const groupOf = (name: string) => `${options.groupPrefix}.${name}`
  const topicsOf = (categories: readonly string[] | undefined) => (categories ?? KNOWN_CATEGORIES).map((c) => topicFor(options.topics.prefix, c))

  return {
    setCheckpoint: (name, position) => Effect.promise(async () => {
      // Replay rebuilt the read model from the store; the group resumes from the end (or the start for position 0).
      const admin = options.kafka.admin()
      await admin.connect()
      try {
        const existing = new Set(await admin.listTopics())
        for (const topic of topicsOf(undefined).filter((t) => existing.has(t))) {
          await admin.resetOffsets({ groupId: groupOf(name), topic, earliest: position === 0 })
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
        sessionTimeout: options.sessionTimeoutMs ?? 10_000,
        heartbeatInterval: Math.max(500, Math.floor((options.sessionTimeoutMs ?? 10_000) / 5)),
        allowAutoTopicCreation: false,
      })
      let stopping = false
      let lastPosition = 0
      await consumer.connect()
      await consumer.subscribe({ topics: topicsOf(subscription.categories), fromBeginning: true })
      await consumer.run({
        partitionsConsumedConcurrently: subscription.concurrency ?? 1,
        eachMessage: async ({ message, topic, partition }) => {
          const event = JSON.parse(message.value!.toString()) as RecordedEvent
          for (let attempt = 1; ; attempt++) {
            try {
              await handler(event)
              break
            } catch (error) {
              // Abandoned at shutdown: leave the offset uncommitted so the next member of the group handles it.
              if (stopping) throw error
              log(`subscriber ${subscription.name} failed on ${event.type} (${topic}/${partition}@${message.offset}, attempt ${attempt})`, error)
              if (attempt >= MAX_ATTEMPTS) break
              await new Promise((r) => setTimeout(r, Math.min(5000, 100 * 2 ** attempt)))
            }
          }
          lastPosition = Math.max(lastPosition, event.position)
        },
      })
      return {
        checkpoint: () => lastPosition,
        stop: async () => {
          stopping = true
          await consumer.disconnect()
        },
      }
    }),
  }
}
