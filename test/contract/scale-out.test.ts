import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Effect } from 'effect'
import { Kafka, logLevel } from 'kafkajs'
import { MongoClient } from 'mongodb'
import t from 'tap'
import { azureBlobStore } from '../../infra/azure/blob-store.js'
import { eventStoreDbStore } from '../../infra/eventstoredb/event-store.js'
import { makeKafkaEventLog } from '../../infra/kafka/event-log.js'
import { relayToKafka } from '../../infra/kafka/relay.js'
import { mongoDocumentStore } from '../../infra/mongo/document-store.js'
import { sqliteCatchUpLog } from '../../infra/sqlite/checkpoints.js'
import { makeSqliteEventStore } from '../../infra/sqlite/event-store.js'
import { acquire } from '../helpers/scoped.js'
import { PROJECTIONS } from '../../projections/index.js'
import { auditTrailContract, recordIntoReadModel } from './audit-trail.contract.js'
import { blobStoreContract } from './blob-store.contract.js'
import { documentStoreContract } from './document-store.contract.js'
import { eventLogContract } from './event-log.contract.js'
import { eventStoreContract } from './event-store.contract.js'

/**
 * The same contract suites against the scale-out adapters on real servers. A server that is not configured is
 * skipped, except with REQUIRE_SERVICES=1 (CI), where it fails.
 */
const required = process.env.REQUIRE_SERVICES === '1'
const whenConfigured = (variable: string, what: string, run: (value: string) => void) => {
  const value = process.env[variable]
  if (value) return run(value)
  if (required) t.fail(`${what}: ${variable} is not set but REQUIRE_SERVICES=1`)
  else t.test(what, { skip: `set ${variable} to run it` }, async () => {})
}

whenConfigured('MONGO_URL', 'MongoDB document store', (url) => {
  documentStoreContract(t, 'MongoDB protocol', async () => {
    const database = `contract_${randomUUID().slice(0, 8)}`
    const { value: store, release } = await acquire(mongoDocumentStore({ url, database }))
    return { store, cleanup: release }
  })
})

whenConfigured('MONGO_URL', 'MongoDB audit trail', (url) => {
  auditTrailContract(t, 'read model in the MongoDB-protocol document store (scale-out)', async () => {
    const database = `audit_${randomUUID().slice(0, 8)}`
    const { value: docs, release } = await acquire(mongoDocumentStore({ url, database }))
    // Its queries' index, as the projector's start-up makes it.
    await Effect.runPromise(docs.ensureIndexes(PROJECTIONS.flatMap((projection) => projection.indexes)))
    return { record: recordIntoReadModel(docs), cleanup: release }
  })
})

whenConfigured('MONGO_URL', 'MongoDB batches', (url) => {
  t.test('MongoDB: a batch sends its writes at its end, and a failing one drops what it had not sent', async (t) => {
    const database = `batch_${randomUUID().slice(0, 8)}`
    const { value: store, release } = await acquire(mongoDocumentStore({ url, database, prefix: 'b_' }))
    const client = await new MongoClient(url).connect()
    t.teardown(async () => { await client.db(database).dropDatabase(); await client.close(); await release() })
    const stored = (id: string) => Effect.promise(() => client.db(database).collection('b_c').findOne({ _id: id as never }))

    const seenOutside = await Effect.runPromise(store.inBatch(Effect.gen(function* () {
      yield* store.put('c', { _id: 'kept', n: 1 })
      return yield* stored('kept')
    })))
    t.equal(seenOutside, null, 'nothing reaches the server before the batch ends')
    t.same(await Effect.runPromise(stored('kept')), { _id: 'kept', n: 1 }, 'everything after it')

    const failed = await Effect.runPromise(Effect.either(store.inBatch(Effect.gen(function* () {
      yield* store.put('c', { _id: 'sent', n: 1 })
      yield* store.count('c', {})
      yield* store.put('c', { _id: 'sent', n: 2 })
      yield* store.put('c', { _id: 'dropped', n: 1 })
      yield* store.delete('c', 'kept')
      return yield* Effect.fail('stop' as const)
    }))))
    t.equal(failed._tag, 'Left')
    t.same(await Effect.runPromise(stored('sent')), { _id: 'sent', n: 1 }, 'a write a query sent stays, at the value it was sent with')
    t.equal(await Effect.runPromise(stored('dropped')), null, 'a write not sent yet is dropped')
    t.same(await Effect.runPromise(stored('kept')), { _id: 'kept', n: 1 }, 'a deletion not sent yet is dropped')
  })
})

whenConfigured('MONGO_URL', 'MongoDB indexes', (url) => {
  t.test('MongoDB creates the indexes every projection declares, under the collection prefix', async (t) => {
    const database = `indexes_${randomUUID().slice(0, 8)}`
    const { value: store, release } = await acquire(mongoDocumentStore({ url, database, prefix: 'ix_' }))
    const client = await new MongoClient(url).connect()
    t.teardown(async () => { await client.db(database).dropDatabase(); await client.close(); await release() })
    const declared = PROJECTIONS.flatMap((projection) => projection.indexes)
    t.ok(declared.some((index) => index.collection === 'jobs'), 'the jobs projection declares its listing indexes')
    await Effect.runPromise(store.ensureIndexes(declared))
    await Effect.runPromise(store.ensureIndexes(declared))
    for (const index of declared) {
      const keys = (await client.db(database).collection(`ix_${index.collection}`).indexes()).map((existing) => JSON.stringify(existing.key))
      t.ok(keys.includes(JSON.stringify(Object.fromEntries(index.fields))), `${index.collection}: ${JSON.stringify(index.fields)}`)
    }
  })
})

whenConfigured('AZURE_BLOB_CONNECTION_STRING', 'Azure Blob Storage', (connectionString) => {
  blobStoreContract(t, 'Azure Blob Storage (Azurite)', async () => {
    const store = await Effect.runPromise(azureBlobStore({ connectionString, container: `contract-${randomUUID().slice(0, 8)}` }))
    return { store, cleanup: async () => {} }
  })
})

whenConfigured('KAFKA_BROKERS', 'Kafka event log', (brokers) => {
  eventLogContract(t, 'Kafka (relay from SQLite, consumer groups)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sw-kafka-'))
    const store = makeSqliteEventStore(join(dir, 'events.db'))
    const kafka = new Kafka({ clientId: 'contract', brokers: brokers.split(','), logLevel: logLevel.NOTHING })
    const topics = { prefix: `contract-${randomUUID().slice(0, 8)}`, partitions: 4 }
    const relay = await acquire(relayToKafka({ kafka, topics, source: sqliteCatchUpLog(store, { pollIntervalMs: 20 }), lingerMs: 2 }))
    const log = makeKafkaEventLog({ kafka, topics, groupPrefix: topics.prefix, sessionTimeoutMs: 6000 })
    return {
      store, log, totalOrderCheckpoint: false,
      cleanup: async () => { await relay.release(); store.db.close(); rmSync(dir, { recursive: true, force: true }) },
    }
  })
})

// No EventStoreDB server can be installed on these machines; the suite runs wherever EVENTSTORE_URL is set.
if (process.env.EVENTSTORE_URL) {
  eventStoreContract(t, 'EventStoreDB', async () => {
    const { value: store, release } = await acquire(eventStoreDbStore(process.env.EVENTSTORE_URL!))
    return { store, cleanup: release }
  })
} else {
  t.test('EventStoreDB event store', { skip: 'set EVENTSTORE_URL to run it (no EventStoreDB server in CI)' }, async () => {})
}
