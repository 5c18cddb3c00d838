import type { Admin } from 'kafkajs'
import { SCHEMA_VERSION } from '../../domain/events.js'
import { CATEGORIES, streamCategory } from '../../domain/streams.js'
import type { RecordedEvent } from '../../ports/event-store.js'

/** One topic per stream category, in the plural: `<prefix>.jobs`, `<prefix>.webhook-deliveries`, ... (docs/kafka-topics.md). */
export const topicFor = (prefix: string, category: string) =>
  `${prefix}.${category.endsWith('y') ? `${category.slice(0, -1)}ies` : `${category}s`}`

/** The catalogue's categories: their topics are created at start-up; others when their first event is relayed. */
export const KNOWN_CATEGORIES = CATEGORIES

export interface TopicSettings {
  readonly prefix: string
  readonly partitions: number
}

export const makeTopicEnsurer = (admin: Admin, settings: TopicSettings) => {
  const known = new Set<string>()
  return async (categories: readonly string[]) => {
    const missing = categories.map((c) => topicFor(settings.prefix, c)).filter((topic) => !known.has(topic))
    if (missing.length === 0) return
    const existing = new Set(await admin.listTopics())
    const toCreate = missing.filter((topic) => !existing.has(topic))
    if (toCreate.length > 0) {
      // Pre-created with replication factor 1 by default; kafkajs does not cope well with auto-created topics.
      // kafkajs' own wait for leaders gives up on a fresh broker's "does not host this topic-partition"; ours below retries it.
      await admin.createTopics({ waitForLeaders: false, topics: toCreate.map((topic) => ({ topic, numPartitions: settings.partitions })) }).catch((e) => {
        if (!/already exists/i.test(String(e?.message))) throw e
      })
    }
    await waitForLeaders(admin, missing)
    for (const topic of missing) known.add(topic)
  }
}

/**
 * A broker answers "does not host this topic-partition" until a new topic's partitions have leaders and the
 * metadata has spread; wait for that instead of letting the first producer or consumer fail.
 */
const waitForLeaders = async (admin: Admin, topics: readonly string[], timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      const { topics: metadata } = await admin.fetchTopicMetadata({ topics: [...topics] })
      if (metadata.length === topics.length && metadata.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) return
    } catch (error) {
      if (Date.now() > deadline) throw error
    }
    if (Date.now() > deadline) throw new Error(`topics without leaders after ${timeoutMs} ms: ${topics.join(', ')}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** The message of one event: key = stream id (per-aggregate order), value = the JSON envelope, headers for routing. */
export const toMessage = (event: RecordedEvent) => ({
  key: event.stream,
  value: JSON.stringify(event),
  headers: { event_id: event.event_id, type: event.type, schema_version: String(SCHEMA_VERSION) },
})

export const categoryOf = (event: RecordedEvent) => streamCategory(event.stream)
