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
import { freePort } from '../helpers/service.js'

// The event-log port answers its failures as typed errors the caller can handle, not as defects.
const nothing = async () => {}

t.test('a Kafka log whose brokers cannot be reached fails with LogUnavailable', async (t) => {
  // A port nothing listens on: the connection is refused at once, and no retries hide it.
  const kafka = new Kafka({ clientId: 'failures', brokers: [`127.0.0.1:${await freePort()}`], retry: { retries: 0 }, connectionTimeout: 1000, logLevel: logLevel.NOTHING })
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
