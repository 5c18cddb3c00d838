import { randomUUID } from 'node:crypto'
import type { Kafka } from 'kafkajs'
import type { RecordedEvent } from '../../ports/event-store.js'

export type PartitionOffsets = Map<string, Map<number, string>>

/**
 * Commits offsets for a consumer group with no running member, every topic at once: one consumer joins the group,
 * seeks each partition while paused and leaves at its first fetch, which commits the seeks (what kafkajs'
 * `admin.setOffsets` does for one topic per join: a join per topic made moving a group slow).
 */
export const commitGroupOffsets = async (kafka: Kafka, groupId: string, offsets: PartitionOffsets) => {
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
export const offsetsAfter = async (kafka: Kafka, topics: readonly string[], position: number): Promise<PartitionOffsets> => {
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
