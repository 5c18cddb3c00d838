import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Effect } from 'effect'
import { Kafka, logLevel } from 'kafkajs'
import t from 'tap'
import { makeKafkaEventLog } from '../../infra/kafka/event-log.js'
import { makeCatchUpLog } from '../../infra/log/catch-up.js'
import { documentCheckpoints } from '../../infra/log/document-checkpoints.js'
import { makeSqliteDocumentStore } from '../../infra/sqlite/document-store.js'
import { makeSqliteEventStore } from '../../infra/sqlite/event-store.js'
import { portNothingListensOn } from '../helpers/service.js'

// The event-log port answers its failures as typed errors the caller can handle, not as defects.
const nothing = async () => {}

t.test('a Kafka log whose brokers cannot be reached fails with LogUnavailable', async (t) => {
  // A port nothing listens on: the connection is refused at once, and no retries hide it.
  const kafka = new Kafka({ clientId: 'failures', brokers: [`127.0.0.1:${await portNothingListensOn()}`], retry: { retries: 0 }, connectionTimeout: 1000, logLevel: logLevel.NOTHING })
  const log = makeKafkaEventLog({ kafka, topics: { prefix: 'failures', partitions: 1 }, groupPrefix: 'failures' })
  const subscribed = await Effect.runPromise(Effect.either(log.subscribe({ name: 'p', categories: ['job'] }, nothing)))
  t.equal(subscribed._tag === 'Left' && subscribed.left._tag, 'LogUnavailable', 'subscribe')
  const moved = await Effect.runPromise(Effect.either(log.setCheckpoint('p', 10)))
  t.equal(moved._tag === 'Left' && moved.left._tag, 'LogUnavailable', 'setCheckpoint')
})

t.test('a catch-up log whose checkpoint store cannot be read fails with StoreUnavailable', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-log-failures-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const store = makeSqliteEventStore(join(dir, 'events.db'))
  const docs = makeSqliteDocumentStore(join(dir, 'docs.db'))
  t.teardown(() => store.db.close())
  docs.db.close()
  const log = makeCatchUpLog(store, documentCheckpoints(docs))
  const subscribed = await Effect.runPromise(Effect.either(log.subscribe({ name: 'p' }, nothing)))
  t.equal(subscribed._tag === 'Left' && subscribed.left._tag, 'StoreUnavailable', 'subscribe')
  const moved = await Effect.runPromise(Effect.either(log.setCheckpoint('p', 10)))
  t.equal(moved._tag === 'Left' && moved.left._tag, 'StoreUnavailable', 'setCheckpoint')
})

t.test('a catch-up log read at once (readAllNow) logs a read that fails and reads again at the next wake', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-log-failures-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const store = makeSqliteEventStore(join(dir, 'events.db'))
  const docs = makeSqliteDocumentStore(join(dir, 'docs.db'))
  t.teardown(() => { store.db.close(); docs.db.close() })
  let failing = true
  const logged: string[] = []
  const log = makeCatchUpLog(store, documentCheckpoints(docs), {
    pollIntervalMs: 20, appended: store.appended, log: (message) => logged.push(message),
    readAllNow: (after, limit) => {
      if (failing) throw new Error('disk gone')
      return store.readAllNow(after, limit)
    },
  })
  const handled: string[] = []
  const subscription = await Effect.runPromise(log.subscribe({ name: 'p' }, async (event) => { handled.push(event.type) }))
  t.teardown(() => subscription.stop())
  await Effect.runPromise(store.append('job-1', [{
    event_id: 'e-1', type: 'Tested', org_id: 'o', occurred_at: '2024-05-01T12:00:00.000Z', data: {}, metadata: { correlation_id: 'c', causation_id: null, actor: 't' },
  }], 'no_stream'))
  const deadline = Date.now() + 20_000
  while (logged.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  t.match(logged[0], /could not read the log/, 'the failed read is logged')
  t.same(handled, [], 'nothing handed over while reads fail')
  failing = false
  while (handled.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  t.same(handled, ['Tested'], 'the event is handed over once the store answers again')
})
