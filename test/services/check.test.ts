// Round trips against the local test servers of scripts/services/start.sh
// (Kafka, a MongoDB-protocol server, Azurite). Settings come from the process
// environment first, then from <repo>/.services/env (written by start.sh).
// A server whose setting is missing is skipped, or fails when REQUIRE_SERVICES=1.
//
//   scripts/services/start.sh && npx tap test/services/check.test.ts
import t, { type Test } from 'tap'
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { randomUUID } from 'node:crypto'

const ENV_FILE = resolve(dirname(fileURLToPath(import.meta.url)), '../../.services/env')
const REQUIRE = process.env.REQUIRE_SERVICES === '1'
const ROUND_TRIP_TIMEOUT_MS = 60_000

function readEnvFile(path: string): Record<string, string> {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return {}
  }
  const out: Record<string, string> = {}
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Z0-9_]+)=(.*)$/.exec(line)
    if (!m) continue
    // Values are unquoted (the connection string holds ';' and '='), but accept quotes too.
    out[m[1]] = m[2].trim().replace(/^(['"])(.*)\1$/, '$2')
  }
  return out
}

const fileEnv = readEnvFile(ENV_FILE)
const setting = (name: string): string | undefined => process.env[name] || fileEnv[name] || undefined

/** Runs `fn` as a subtest when `envName` is set; otherwise skips it, or fails under REQUIRE_SERVICES=1. */
function withService(
  name: string,
  envName: string,
  fn: (t: Test, value: string) => Promise<void>,
): void {
  const value = setting(envName)
  if (value) {
    t.test(name, { timeout: ROUND_TRIP_TIMEOUT_MS }, (tt) => fn(tt, value))
    return
  }
  const why = `${envName} is not set (run scripts/services/start.sh, which writes ${ENV_FILE})`
  if (REQUIRE) t.fail(`${name}: ${why}, and REQUIRE_SERVICES=1`)
  else t.test(name, { skip: why }, () => {})
}

/** Rejects after `ms` so a hung client fails the test with a message instead of a tap timeout. */
function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms)
  })
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer))
}

withService('kafka: create topic, produce, consume', 'KAFKA_BROKERS', async (t, brokers) => {
  const { Kafka, Partitioners, logLevel } = await import('kafkajs')
  const kafka = new Kafka({
    clientId: 'services-check',
    brokers: brokers.split(',').map((b) => b.trim()),
    logLevel: logLevel.NOTHING, // failures surface as rejected promises; the first consumer logs harmless retries
    retry: { retries: 5 },
  })
  const topic = `services-check-${randomUUID()}`
  const admin = kafka.admin()
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner })
  const consumer = kafka.consumer({ groupId: `services-check-${randomUUID()}` })
  t.teardown(async () => {
    await consumer.disconnect().catch(() => {})
    await producer.disconnect().catch(() => {})
    await admin.deleteTopics({ topics: [topic] }).catch(() => {})
    await admin.disconnect().catch(() => {})
  })

  await admin.connect()
  const created = await admin.createTopics({
    topics: [{ topic, numPartitions: 1, replicationFactor: 1 }],
    waitForLeaders: true,
  })
  t.equal(created, true, 'topic created')
  t.ok((await admin.listTopics()).includes(topic), 'topic listed')

  const payload = `hello ${randomUUID()}`
  await producer.connect()
  await producer.send({ topic, messages: [{ key: 'k1', value: payload }] })

  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  const received = await within(
    30_000,
    'consume',
    new Promise<{ key: string | undefined; value: string | undefined }>((resolveMessage, reject) => {
      consumer
        .run({
          eachMessage: async ({ message }) => {
            resolveMessage({ key: message.key?.toString(), value: message.value?.toString() })
          },
        })
        .catch(reject)
    }),
  )
  t.same(received, { key: 'k1', value: payload }, 'consumed the produced message')
})

withService('mongo: insert and read back', 'MONGO_URL', async (t, url) => {
  const { MongoClient } = await import('mongodb')
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 })
  const db = client.db(`services_check_${Date.now()}`)
  t.teardown(async () => {
    await db.dropDatabase().catch(() => {})
    await client.close()
  })
  await client.connect()
  t.same((await db.command({ ping: 1 })).ok, 1, 'ping')
  const pages = db.collection<{ _id: string; url: string; n: number }>('pages')
  await pages.insertMany([
    { _id: 'a', url: 'https://example.com/a', n: 1 },
    { _id: 'b', url: 'https://example.com/b', n: 2 },
  ])
  t.same(await pages.findOne({ _id: 'b' }), { _id: 'b', url: 'https://example.com/b', n: 2 }, 'findOne')
  t.same(
    (await pages.find({ n: { $gt: 0 } }).sort({ n: -1 }).toArray()).map((d) => d._id),
    ['b', 'a'],
    'find with filter and sort',
  )
})

withService('azurite: create container, upload, download', 'AZURE_BLOB_CONNECTION_STRING', async (t, conn) => {
  const { BlobServiceClient } = await import('@azure/storage-blob')
  const service = BlobServiceClient.fromConnectionString(conn)
  const container = service.getContainerClient(`services-check-${randomUUID()}`)
  t.teardown(async () => {
    await container.deleteIfExists().catch(() => {})
  })
  await container.create()
  const body = `blob ${randomUUID()}`
  const blob = container.getBlockBlobClient('dir/check.txt')
  await blob.upload(body, Buffer.byteLength(body), { blobHTTPHeaders: { blobContentType: 'text/plain' } })
  const downloaded = await blob.downloadToBuffer()
  t.equal(downloaded.toString('utf8'), body, 'downloaded what was uploaded')
  const names: string[] = []
  for await (const item of container.listBlobsFlat()) names.push(item.name)
  t.same(names, ['dir/check.txt'], 'listed')
})
