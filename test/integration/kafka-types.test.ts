import { randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import { Kafka, logLevel } from 'kafkajs'
import t from 'tap'
import { makeKafkaEventLog } from '../../infra/kafka/event-log.js'
import { toMessage, topicFor } from '../../infra/kafka/topics.js'
import type { RecordedEvent } from '../../ports/event-store.js'
import { gate, until } from '../contract/event-log.contract.js'

/**
 * A Kafka subscription that names its event types gets only those; the others count as handled at once, without
 * moving the commit past an unfinished event before them. Needs Kafka: skipped without KAFKA_BROKERS, fails under
 * REQUIRE_SERVICES=1.
 */
const brokers = process.env.KAFKA_BROKERS
if (!brokers && process.env.REQUIRE_SERVICES === '1') t.fail('KAFKA_BROKERS is not set but REQUIRE_SERVICES=1')

t.test('a Kafka subscription with types gets only those, and commits the others in partition order', { skip: brokers ? false : 'set KAFKA_BROKERS to run it' }, async (t) => {
  const prefix = `types-${randomUUID().slice(0, 8)}`
  const category = `c${randomUUID().replaceAll('-', '').slice(0, 12)}`
  const topic = topicFor(prefix, category)
  const groupId = `${prefix}.typed`
  const kafka = new Kafka({ clientId: 'types', brokers: brokers!.split(','), logLevel: logLevel.NOTHING })
  const log = makeKafkaEventLog({ kafka, topics: { prefix, partitions: 1 }, groupPrefix: prefix, sessionTimeoutMs: 6000 })
  const producer = kafka.producer()
  await producer.connect()
  const admin = kafka.admin()
  await admin.connect()
  t.teardown(async () => {
    await producer.disconnect()
    await admin.deleteGroups([groupId]).catch(() => {})
    await admin.deleteTopics({ topics: [topic] }).catch(() => {})
    await admin.disconnect()
  })
  let position = 0
  const event = (stream: string, type: string): RecordedEvent => ({
    event_id: randomUUID(), type, org_id: 'org-1', occurred_at: '2024-05-01T12:00:00.000Z', data: {},
    metadata: { correlation_id: 'c', causation_id: null, actor: 'test' }, stream: `${category}-${stream}`, revision: 0, position: ++position,
  })
  const committed = async () => (await admin.fetchOffsets({ groupId, topics: [topic] }))[0]!.partitions[0]!.offset

  // One partition, so the offsets say which events are behind the commit.
  const slow = event('1', 'Wanted')
  const otherAfterSlow = event('2', 'Other')
  const fast = event('3', 'Wanted')
  const held = gate()
  const received: RecordedEvent[] = []
  const subscription = await Effect.runPromise(log.subscribe({ name: 'typed', categories: [category], types: ['Wanted'], concurrency: 4 }, async (e) => {
    if (e.event_id === slow.event_id) await held.opened
    received.push(e)
  }))
  let stopped = false
  t.teardown(async () => {
    held.open()
    if (!stopped) await subscription.stop()
  })
  await producer.send({ topic, messages: [slow, otherAfterSlow, fast].map(toMessage) })
  await until(() => received.length > 0, 'the fast event', 60_000)
  t.same(received.map((e) => e.event_id), [fast.event_id], 'the fast one of its type runs beside the slow one')
  t.ok(subscription.checkpoint() < slow.position, 'the checkpoint waits for the slow event')
  t.not(await committed(), '3', 'nothing after the slow event is committed while it runs')

  held.open()
  const last = event('2', 'Other')
  await producer.send({ topic, messages: [toMessage(last)] })
  await until(() => subscription.checkpoint() >= last.position, 'the checkpoint to pass the last event', 60_000)
  t.same(received.map((e) => e.event_id).sort(), [slow.event_id, fast.event_id].sort(), 'only its types were handed over')
  await subscription.stop()
  stopped = true
  t.equal(await committed(), '4', 'stopping commits up to the end, the other types included')
})
