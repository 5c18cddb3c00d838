import { fork, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { Effect } from 'effect'
import { Kafka, logLevel } from 'kafkajs'
import t from 'tap'
import { makeKafkaEventLog } from '../../infra/kafka/event-log.js'
import { toMessage, topicFor } from '../../infra/kafka/topics.js'
import type { RecordedEvent } from '../../ports/event-store.js'
import { until } from '../contract/event-log.contract.js'

/**
 * A member of a Kafka consumer group that survives another member's crash keeps its whole concurrency: the group
 * gives it the dead member's partitions (some of which it held before the other joined), and it then runs as many
 * handlers at once as when it was alone, never more, and finishes and commits everything. Needs Kafka: skipped
 * without KAFKA_BROKERS, fails under REQUIRE_SERVICES=1.
 */
const brokers = process.env.KAFKA_BROKERS
if (!brokers && process.env.REQUIRE_SERVICES === '1') t.fail('KAFKA_BROKERS is not set but REQUIRE_SERVICES=1')

const CONCURRENCY = 4
const HANDLER_MS = 150
const MEMBER = fileURLToPath(new URL('../fixtures/kafka-member.ts', import.meta.url))

t.test('the survivor of a crashed member keeps all its handler slots and commits every partition', { skip: brokers ? false : 'set KAFKA_BROKERS to run it' }, async (t) => {
  const prefix = `rebalance-${randomUUID().slice(0, 8)}`
  const category = `c${randomUUID().replaceAll('-', '').slice(0, 12)}`
  const topic = topicFor(prefix, category)
  const name = 'fetcher'
  const kafka = new Kafka({ clientId: 'rebalance', brokers: brokers!.split(','), logLevel: logLevel.NOTHING })
  const producer = kafka.producer()
  await producer.connect()
  let member: ChildProcess | null = null
  t.teardown(async () => {
    member?.kill('SIGKILL')
    await producer.disconnect()
    const admin = kafka.admin()
    await admin.connect()
    await admin.deleteGroups([`${prefix}.${name}`]).catch(() => {})
    await admin.deleteTopics({ topics: [topic] }).catch(() => {})
    await admin.disconnect()
  })

  let position = 0
  /** Publishes `count` events, each on a stream of its own (spread over the partitions), and answers their positions. */
  const publish = async (count: number) => {
    const events: RecordedEvent[] = Array.from({ length: count }, () => ({
      event_id: randomUUID(), type: 'Step', org_id: 'org-1', occurred_at: '2024-05-01T12:00:00.000Z', data: {},
      metadata: { correlation_id: 'c', causation_id: null, actor: 'test' },
      stream: `${category}-${randomUUID()}`, revision: 0, position: ++position,
    }))
    await producer.send({ topic, messages: events.map(toMessage) })
    return events.map((e) => e.position)
  }

  // The survivor, in this process: how many of its handlers run at once.
  const survivorHandled = new Set<number>()
  let running = 0
  let mostRunning = 0
  const log = makeKafkaEventLog({ kafka, topics: { prefix, partitions: 8 }, groupPrefix: prefix, sessionTimeoutMs: 6000 })
  const survivor = await Effect.runPromise(log.subscribe({ name, categories: [category], concurrency: CONCURRENCY }, async (event) => {
    running += 1
    mostRunning = Math.max(mostRunning, running)
    await new Promise((resolve) => setTimeout(resolve, HANDLER_MS))
    running -= 1
    survivorHandled.add(event.position)
  }))
  let stopped = false
  t.teardown(async () => { if (!stopped) await survivor.stop() })
  const memberHandled = new Set<number>()
  const handledByAnyone = (positions: readonly number[]) => positions.every((p) => survivorHandled.has(p) || memberHandled.has(p))

  // Alone first: every partition is the survivor's.
  const alone = await publish(4 * CONCURRENCY)
  await until(() => handledByAnyone(alone), 'the first member alone', 60_000)
  t.equal(mostRunning, CONCURRENCY, 'alone, the survivor runs as many handlers as its concurrency')

  // A second member joins and takes some of the partitions (some events go to it).
  member = fork(MEMBER, [brokers!, prefix, category, name, String(CONCURRENCY), String(HANDLER_MS)], { execArgv: ['--import', 'tsx'], stdio: 'ignore' })
  member.on('message', (message: { handled?: number }) => { if (message.handled !== undefined) memberHandled.add(message.handled) })
  for (let rounds = 0; memberHandled.size === 0; rounds++) {
    if (rounds >= 60) throw new Error('the second member never handled an event')
    const joining = await publish(2 * CONCURRENCY)
    await until(() => handledByAnyone(joining), 'events while the second member joins', 60_000)
  }

  // It crashes. Its partitions come back to the survivor once its session times out, from its committed offsets.
  member.kill('SIGKILL')
  const crashed = await publish(8 * CONCURRENCY)
  await until(() => crashed.every((p) => survivorHandled.has(p)), 'the survivor to handle the events of the crashed member\'s partitions', 90_000)

  // Then alone again, on every partition.
  mostRunning = running
  const after = await publish(8 * CONCURRENCY)
  await until(() => after.every((p) => survivorHandled.has(p)), 'the survivor alone after the rebalance', 60_000)
  t.equal(mostRunning, CONCURRENCY, 'after the rebalance, the survivor runs as many handlers at once as it did alone, and no more')

  // Stopping commits what it finished: the group has nothing left to deliver on any partition.
  await survivor.stop()
  stopped = true
  const admin = kafka.admin()
  await admin.connect()
  const ends = await admin.fetchTopicOffsets(topic)
  const [committed] = await admin.fetchOffsets({ groupId: `${prefix}.${name}`, topics: [topic] })
  await admin.disconnect()
  t.same(
    committed!.partitions.map((p) => [p.partition, p.offset]).sort((a, b) => Number(a[0]) - Number(b[0])),
    ends.map((e) => [e.partition, e.high]).sort((a, b) => Number(a[0]) - Number(b[0])),
    'every partition is committed up to its end, those taken over from the crashed member included',
  )
})
