/**
 * e2e:scale-out — the scale-out profile as separate OS processes on real servers (Kafka, a MongoDB-protocol server,
 * Azurite; the event store is the shared SQLite file since no EventStoreDB server is available here):
 * api, relay, two fetchers and a projector. Submits light jobs against a local fixture server, SIGKILLs one fetcher
 * midway, then checks: every job reached exactly one terminal state; the Kafka topics hold every event exactly once
 * in per-stream order; the MongoDB read models equal a replay. Prints throughput beside the embedded profile on the
 * same jobs. Exits non-zero on any difference.
 */
import { randomUUID } from 'node:crypto'
import { readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { Kafka, logLevel } from 'kafkajs'
import { MongoClient } from 'mongodb'
import { startFixtureSite } from '../test/fixtures/site.js'
import { tempDataDir, waitFor } from '../test/helpers/service.js'
import { runCli, spawnService } from '../test/helpers/process.js'
import { pool } from '../bench/stats.js'

const JOBS = Number(process.env.E2E_JOBS ?? 500)
const CONCURRENCY = 20

const servicesEnv = (): Record<string, string> => {
  const file = join(process.cwd(), '.services', 'env')
  const fromFile = existsSync(file)
    ? Object.fromEntries(readFileSync(file, 'utf8').split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1).trim().replace(/^'(.*)'$/, '$1')]))
    : {}
  const env = { ...fromFile, ...Object.fromEntries(['KAFKA_BROKERS', 'MONGO_URL', 'AZURE_BLOB_CONNECTION_STRING'].filter((k) => process.env[k]).map((k) => [k, process.env[k]!])) }
  for (const k of ['KAFKA_BROKERS', 'MONGO_URL', 'AZURE_BLOB_CONNECTION_STRING']) {
    if (!env[k]) throw new Error(`${k} is not set: start the servers with scripts/services/start.sh`)
  }
  return env
}

const problems: string[] = []
const check = (ok: boolean, what: string) => { if (!ok) problems.push(what) }

const site = await startFixtureSite()
const runId = randomUUID().slice(0, 8)
const dataDir = tempDataDir('e2e-scale-out')
const env: Record<string, string> = {
  ...servicesEnv(),
  PROFILE: 'scale-out', EVENT_STORE: 'sqlite', DATA_DIR: dataDir,
  MONGO_DB: `e2e_${runId}`, AZURE_BLOB_CONTAINER: `e2e-${runId}`, KAFKA_TOPIC_PREFIX: `e2e-${runId}`, KAFKA_GROUP_PREFIX: `e2e-${runId}`,
  KAFKA_SESSION_TIMEOUT_MS: '6000', KAFKA_PARTITIONS: '8',
  SSRF_ALLOWLIST: `127.0.0.1:${site.port}`, SIGNING_SECRET: `secret-${runId}`, FETCHER_CONCURRENCY: '8',
}

const jobBody = (i: number) => JSON.stringify({ job_type: 'light', target_url: `${site.origin}/${i % 5 === 0 ? 'slow?ms=300' : 'page'}`, tags: ['e2e'] })

/** Submits `count` jobs through an API and answers the job ids and the seconds until all finished. */
const runJobs = async (base: string, key: string, count: number, finished: () => number, midway?: () => void) => {
  const ids: string[] = []
  const started = performance.now()
  await pool(count, CONCURRENCY, async (i) => {
    if (i === Math.floor(count / 2)) midway?.()
    for (;;) {
      const res = await fetch(`${base}/v1/jobs`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: jobBody(i) })
      if (res.status === 202) { ids.push(((await res.json()) as { job_id: string }).job_id); return }
      if (res.status !== 429 && res.status !== 503) throw new Error(`submission ${i} answered ${res.status}: ${await res.text()}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  })
  await waitFor(() => finished() >= count, 240_000, 100)
  return { ids, seconds: (performance.now() - started) / 1000 }
}

const terminalCounts = (file: string) => {
  const db = new Database(file, { readonly: true })
  const rows = db.prepare(`select stream, count(*) as n from events where type in ('JobSucceeded', 'JobFailed') group by stream`).all() as { stream: string; n: number }[]
  db.close()
  return new Map(rows.map((r) => [r.stream.slice(4), r.n]))
}

// --- scale-out run ---
const { api_key: key } = await runCli(env, ['org', 'create', '--name', 'E2E', '--plan', 'enterprise'])
const processes = {
  api: await spawnService(env, ['--roles', 'api']),
  relay: await spawnService(env, ['--roles', 'relay']),
  fetcherA: await spawnService({ ...env, WORKER_ID: 'fetcher-a' }, ['--roles', 'fetcher']),
  fetcherB: await spawnService({ ...env, WORKER_ID: 'fetcher-b' }, ['--roles', 'fetcher']),
  projector: await spawnService(env, ['--roles', 'projector']),
}
await waitFor(async () => (await fetch(`${processes.api.base}/v1/jobs`, { headers: { 'x-api-key': key } })).status === 200, 60_000, 100)
const eventsFile = join(dataDir, 'events.db')
let killedAt = -1
const scaleOut = await runJobs(processes.api.base, key, JOBS, () => terminalCounts(eventsFile).size, () => {
  killedAt = terminalCounts(eventsFile).size
  processes.fetcherA.child.kill('SIGKILL')
})
const counts = terminalCounts(eventsFile)
check(scaleOut.ids.every((id) => counts.get(id) === 1), 'a job did not reach exactly one terminal state')
check(killedAt >= 0 && killedAt < JOBS, 'the fetcher was not killed midway')

// Kafka: every event exactly once, per-stream order as in the store.
const store = new Database(eventsFile, { readonly: true })
const stored = store.prepare('select event_id, stream from events order by position').all() as { event_id: string; stream: string }[]
store.close()
const kafka = new Kafka({ clientId: 'e2e-check', brokers: env.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING })
const consumed: { event_id: string; stream: string }[] = []
const consumer = kafka.consumer({ groupId: `e2e-check-${runId}` })
await consumer.connect()
await consumer.subscribe({ topics: [`e2e-${runId}.jobs`, `e2e-${runId}.orgs`], fromBeginning: true })
await consumer.run({ eachMessage: async ({ message }) => { const e = JSON.parse(message.value!.toString()); consumed.push({ event_id: e.event_id, stream: e.stream }) } })
await waitFor(() => consumed.length >= stored.length, 120_000, 100).catch(() => {})
await new Promise((r) => setTimeout(r, 1000))
await consumer.disconnect()
const perStream = (rows: { event_id: string; stream: string }[]) => {
  const map = new Map<string, string[]>()
  for (const r of rows) map.set(r.stream, [...(map.get(r.stream) ?? []), r.event_id])
  return map
}
const storedStreams = perStream(stored)
const consumedStreams = perStream(consumed)
check(consumed.length === stored.length, `Kafka holds ${consumed.length} events, the store ${stored.length}`)
check([...storedStreams].every(([stream, ids]) => JSON.stringify(consumedStreams.get(stream)) === JSON.stringify(ids)), 'a stream differs in Kafka (missing, duplicated or reordered events)')

// MongoDB read models equal a replay (into another database, with a consumer group nobody uses).
const mongo = new MongoClient(env.MONGO_URL!)
await mongo.connect()
const snapshot = async (database: string) => {
  const db = mongo.db(database)
  const names = (await db.listCollections().toArray()).map((c) => c.name).filter((n) => n.startsWith('rm_') && n !== 'rm_checkpoints').sort()
  const out: Record<string, unknown[]> = {}
  for (const name of names) out[name] = await db.collection(name).find({}).sort({ _id: 1 }).toArray()
  return out
}
await waitFor(async () => (await mongo.db(env.MONGO_DB!).collection('rm_jobs').countDocuments({ status: { $in: ['succeeded', 'failed'] } })) === JOBS, 300_000, 200)
// The other projections drain at their own pace: compare once two snapshots a few seconds apart agree.
let live = await snapshot(env.MONGO_DB!)
for (let settled = false; !settled;) {
  await new Promise((r) => setTimeout(r, 3000))
  const next = await snapshot(env.MONGO_DB!)
  settled = JSON.stringify(next) === JSON.stringify(live)
  live = next
}
const replayStarted = performance.now()
await runCli({ ...env, MONGO_DB: `e2e_${runId}_replay`, KAFKA_GROUP_PREFIX: `e2e-${runId}-replay` }, ['replay'])
console.log(`replay into MongoDB: ${((performance.now() - replayStarted) / 1000).toFixed(1)} s for ${stored.length} events`)
const replayed = await snapshot(`e2e_${runId}_replay`)
const differing = [...new Set([...Object.keys(live), ...Object.keys(replayed)])].filter((name) => JSON.stringify(live[name]) !== JSON.stringify(replayed[name]))
check(differing.length === 0, `the MongoDB read models differ from a replay: ${differing.join(', ')}`)
await mongo.close()

for (const p of Object.values(processes)) p.child.kill('SIGTERM')
await Promise.all(Object.values(processes).map((p) => p.exited))

// --- embedded run, same jobs ---
const embeddedEnv = { DATA_DIR: tempDataDir('e2e-embedded'), SSRF_ALLOWLIST: `127.0.0.1:${site.port}`, FETCHER_CONCURRENCY: '16' }
const { api_key: embeddedKey } = await runCli(embeddedEnv, ['org', 'create', '--name', 'E2E', '--plan', 'enterprise'])
const embedded = await spawnService(embeddedEnv)
await waitFor(async () => (await fetch(`${embedded.base}/v1/jobs`, { headers: { 'x-api-key': embeddedKey } })).status === 200, 60_000, 100)
const embeddedRun = await runJobs(embedded.base, embeddedKey, JOBS, () => terminalCounts(join(embeddedEnv.DATA_DIR, 'events.db')).size)
embedded.child.kill('SIGTERM')
await embedded.exited
await site.close()

const rate = (r: { seconds: number }) => JOBS / r.seconds
console.log(`scale-out ${rate(scaleOut).toFixed(1)} jobs/s vs embedded ${rate(embeddedRun).toFixed(1)} jobs/s (ratio: ${(rate(scaleOut) / rate(embeddedRun)).toFixed(2)})`)
console.log(problems.length === 0
  ? `e2e:scale-out OK: ${JOBS} jobs, each exactly one terminal state (fetcher killed after ${killedAt} finished), ${stored.length} events in Kafka in per-stream order, ${Object.keys(live).length} MongoDB read models equal a replay`
  : `e2e:scale-out FAILED: ${problems.join('; ')}`)
process.exit(problems.length === 0 ? 0 : 1)
