/**
 * e2e:scale-out — the scale-out profile as separate OS processes on real servers (Kafka, a MongoDB-protocol server,
 * Azurite; the event store is the shared SQLite file since no EventStoreDB server is available here):
 * api, relay, two fetchers and a projector. Starts the servers with scripts/services/start.sh unless their settings are
 * given in the environment. A warm-up, then four rounds of light jobs against a local fixture server: one fetcher, two
 * fetchers, one of them SIGKILLed midway, then the survivor alone. Then checks: every job reached exactly one terminal
 * state; no submission was refused by the key's own limits; the Kafka topics hold every event exactly once in
 * per-stream order; the MongoDB read models equal a replay. Prints the throughput of two fetchers beside the embedded
 * profile on the same jobs and beside one fetcher. Removes its databases, topics and container at the end. Exits
 * non-zero on any difference.
 */
import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { readFileSync, readdirSync, existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { BlobServiceClient } from '@azure/storage-blob'
import { Kafka, logLevel } from 'kafkajs'
import { MongoClient } from 'mongodb'
import { startFixtureSite } from '../test/fixtures/site.js'
import { tempDataDir, waitFor } from '../test/helpers/service.js'
import { runCli, spawnService } from '../test/helpers/process.js'
import { percentile, pool } from '../bench/stats.js'

const JOBS = Number(process.env.E2E_JOBS ?? 500)
const CONCURRENCY = 20
const WARM_UP_JOBS = 40

const SERVER_SETTINGS = ['KAFKA_BROKERS', 'MONGO_URL', 'AZURE_BLOB_CONNECTION_STRING'] as const

/** The servers' settings from the environment when all are given; else the servers are started (a no-op for running ones). */
const servicesEnv = (): Record<string, string> => {
  if (SERVER_SETTINGS.every((k) => process.env[k])) return Object.fromEntries(SERVER_SETTINGS.map((k) => [k, process.env[k]!]))
  execFileSync(join(process.cwd(), 'scripts', 'services', 'start.sh'), ['kafka', 'mongo', 'azurite'], { stdio: 'inherit' })
  const file = join(process.cwd(), '.services', 'env')
  const env = existsSync(file)
    ? Object.fromEntries(readFileSync(file, 'utf8').split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1).trim().replace(/^'(.*)'$/, '$1')]))
    : {}
  for (const k of SERVER_SETTINGS) {
    if (!env[k]) throw new Error(`${k} is missing from .services/env after scripts/services/start.sh`)
  }
  return env
}

/** CPU seconds (user + system) used so far by a process and its descendants (the light tier's client); 0 without /proc. */
const cpuSeconds = (pid: number | undefined): number => {
  if (pid === undefined) return 0
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ') // the command name may hold spaces
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
    return (Number(fields[11]) + Number(fields[12])) / 100 + children.reduce((sum, child) => sum + cpuSeconds(child), 0)
  } catch { return 0 }
}

/** The servers' process ids, found by their command lines (Linux; none elsewhere). */
const serverPids = (): Record<string, number> => {
  const mongoPort = new URL(env.MONGO_URL!).port
  const found: Record<string, number> = {}
  for (const entry of existsSync('/proc') ? readdirSync('/proc').filter((name) => /^\d+$/.test(name)) : []) {
    let command = ''
    try { command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ') } catch { continue }
    if (command.includes('kafka.Kafka')) found.kafka = Number(entry)
    else if (command.includes('ferretdb') && command.includes(`:${mongoPort}`)) found.ferretdb = Number(entry)
    else if (command.includes('azurite') && command.includes('--blobPort')) found.azurite = Number(entry)
  }
  return found
}

const problems: string[] = []
const check = (ok: boolean, what: string) => { if (!ok) problems.push(what) }

const scriptStarted = performance.now()
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

/**
 * Each page answers after PAGE_MS, as remote sites do, so a fetcher spends a job's time waiting with a slot taken:
 * what a second fetcher relieves. (Instant local pages measured only the event pipeline, which a fetcher does not add
 * to.) The embedded profile's fetcher has as many slots as the two scale-out fetchers together.
 */
const PAGE_MS = 400
const jobBody = (i: number) => JSON.stringify({ job_type: 'light', target_url: `${site.origin}/slow?ms=${PAGE_MS}&job=${i}`, tags: ['e2e'] })

/**
 * Submits `count` jobs through an API, CONCURRENCY at a time, and answers the job ids, the seconds until all were
 * admitted and until all finished (`finished()` counts up), the median time to a 202 (the API answers once the job is
 * readable: on scale-out, once the projector has written it), and the refused submissions (retried) by error code.
 */
const runJobs = async (base: string, key: string, count: number, finished: () => number, midway?: () => void) => {
  const ids: string[] = []
  const refused = new Map<string, number>()
  const answeredMs: number[] = []
  const before = finished()
  const started = performance.now()
  await pool(count, CONCURRENCY, async (i) => {
    if (i === Math.floor(count / 2)) midway?.()
    for (;;) {
      const sent = performance.now()
      const res = await fetch(`${base}/v1/jobs`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: jobBody(i) })
      if (res.status === 202) {
        ids.push(((await res.json()) as { job_id: string }).job_id)
        answeredMs.push(performance.now() - sent)
        return
      }
      if (res.status !== 429 && res.status !== 503) throw new Error(`submission ${i} answered ${res.status}: ${await res.text()}`)
      const code = res.status === 429 ? ((await res.json()) as { error: { code: string } }).error.code : 'unavailable'
      refused.set(code, (refused.get(code) ?? 0) + 1)
      await new Promise((r) => setTimeout(r, 50))
    }
  })
  const admittedSeconds = (performance.now() - started) / 1000
  await waitFor(() => finished() >= before + count, 240_000, 100)
  return { ids, admittedSeconds, admissionP50Ms: percentile(answeredMs, 50), refused, seconds: (performance.now() - started) / 1000 }
}

/**
 * Refusals by the key's own limits mean a round measured the key (its per-minute window: a round that reaches it
 * waits for the next minute with every fetcher idle), not the pipeline; the run's key has limits far above its load.
 */
const KEY_LIMIT_CODES = ['rate_limit_exceeded', 'daily_quota_exceeded', 'key_limit_concurrent_jobs']

const terminalCounts = (file: string) => {
  const db = new Database(file, { readonly: true })
  const rows = db.prepare(`select stream, count(*) as n from events where type in ('JobSucceeded', 'JobFailed') group by stream`).all() as { stream: string; n: number }[]
  db.close()
  return new Map(rows.map((r) => [r.stream.slice(4), r.n]))
}

/** Drops what the run made on the servers (read models, topics, consumer groups, artifacts) and its data folders. */
const cleanUp = async () => {
  const mongo = new MongoClient(env.MONGO_URL!)
  await mongo.connect()
  for (const database of [env.MONGO_DB!, `${env.MONGO_DB!}_replay`]) await mongo.db(database).dropDatabase()
  await mongo.close()
  const admin = new Kafka({ clientId: 'e2e-clean-up', brokers: env.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING }).admin()
  await admin.connect()
  const topics = (await admin.listTopics()).filter((t) => t.startsWith(`e2e-${runId}.`))
  if (topics.length > 0) await admin.deleteTopics({ topics })
  const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.includes(runId))
  if (groups.length > 0) await admin.deleteGroups(groups).catch(() => {}) // groups still being left by a consumer go later
  await admin.disconnect()
  await BlobServiceClient.fromConnectionString(env.AZURE_BLOB_CONNECTION_STRING!).getContainerClient(`e2e-${runId}`).deleteIfExists()
  for (const dir of [dataDir, embeddedEnv.DATA_DIR]) rmSync(dir, { recursive: true, force: true })
}
const embeddedEnv = { DATA_DIR: tempDataDir('e2e-embedded'), SSRF_ALLOWLIST: `127.0.0.1:${site.port}`, FETCHER_CONCURRENCY: '16' }
const spawned: Awaited<ReturnType<typeof spawnService>>[] = []
const spawn = async (...args: Parameters<typeof spawnService>) => {
  const service = await spawnService(...args)
  spawned.push(service)
  return service
}
const stopAll = async () => {
  for (const p of spawned) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM')
  await Promise.all(spawned.map((p) => p.exited))
}
process.on('uncaughtException', (error) => {
  console.error(error)
  void stopAll().then(cleanUp).finally(() => process.exit(1))
})

// --- scale-out run: one fetcher, two fetchers, one of them SIGKILLed midway, then the survivor alone ---
// The key's limits stay out of the way (the default 600 requests per minute would stall every round past it).
const keyLimits = ['--rate-limit-rpm', '100000', '--daily-quota', '100000000']
const { api_key: key } = await runCli(env, ['org', 'create', '--name', 'E2E', '--plan', 'enterprise', ...keyLimits])
const processes = {
  api: await spawn(env, ['--roles', 'api']),
  relay: await spawn(env, ['--roles', 'relay']),
  fetcherB: await spawn({ ...env, WORKER_ID: 'fetcher-b' }, ['--roles', 'fetcher']),
  projector: await spawn(env, ['--roles', 'projector']),
} as Record<'api' | 'relay' | 'fetcherB' | 'projector', Awaited<ReturnType<typeof spawn>>> & { fetcherA?: Awaited<ReturnType<typeof spawn>> }
const elapsed = () => `${((performance.now() - scriptStarted) / 1000).toFixed(0)} s`
console.log(`processes ready after ${elapsed()}`)
await waitFor(async () => (await fetch(`${processes.api.base}/v1/jobs`, { headers: { 'x-api-key': key } })).status === 200, 60_000, 100)
const eventsFile = join(dataDir, 'events.db')
const finishedJobs = () => terminalCounts(eventsFile).size
// Where the time goes: CPU per job of each role's process and of each server, per round.
const servers = serverPids()
const cpuNow = () => ({
  ...Object.fromEntries(Object.entries(processes).map(([role, p]) => [role, cpuSeconds(p.child.pid)])),
  ...Object.fromEntries(Object.entries(servers).map(([name, pid]) => [name, cpuSeconds(pid)])),
})
const measured = async (round: () => ReturnType<typeof runJobs>) => {
  const before = cpuNow()
  const result = await round()
  const after = cpuNow()
  // A process killed during the round has no figure.
  return { ...result, cpuMsPerJob: Object.entries(after).filter(([, seconds]) => seconds > 0).map(([name, seconds]) => `${name} ${(((seconds - (before[name] ?? 0)) * 1000) / JOBS).toFixed(1)}`).join(', ') }
}
// A few jobs first, not measured: every process warms up (consumer groups joined, code compiled, connections open), so
// the first measured round is not charged for it while the last one is not.
const warmUp = await runJobs(processes.api.base, key, WARM_UP_JOBS, finishedJobs)
// One fetcher first, on its own from the start; the survivor of the crash round is measured alone at the end.
const oneFetcher = await measured(() => runJobs(processes.api.base, key, JOBS, finishedJobs))
// The second fetcher joins; unmeasured jobs run until it has started some (its share of partitions assigned).
processes.fetcherA = await spawn({ ...env, WORKER_ID: 'fetcher-a' }, ['--roles', 'fetcher'])
const startedByFetcherA = () => {
  const db = new Database(eventsFile, { readonly: true })
  const row = db.prepare(`select count(*) as n from events where type = 'JobStarted' and json_extract(data, '$.worker_id') = 'fetcher-a'`).get() as { n: number }
  db.close()
  return row.n
}
const joinRounds: Awaited<ReturnType<typeof runJobs>>[] = []
while (startedByFetcherA() === 0) {
  if (joinRounds.length >= 20) throw new Error('the second fetcher never started a job')
  joinRounds.push(await runJobs(processes.api.base, key, WARM_UP_JOBS, finishedJobs))
}
const twoFetchers = await measured(() => runJobs(processes.api.base, key, JOBS, finishedJobs))
let killedAt = -1
const finishedBeforeCrash = finishedJobs()
const crash = await measured(() => runJobs(processes.api.base, key, JOBS, finishedJobs, () => {
  killedAt = finishedJobs() - finishedBeforeCrash
  processes.fetcherA!.child.kill('SIGKILL')
}))
// The crash round ended after the group gave the dead fetcher's partitions to the survivor, which now runs alone.
const survivor = await measured(() => runJobs(processes.api.base, key, JOBS, finishedJobs))
// A round's time runs from its first submission to its last job's terminal event, admission included.
const rounds = { 'one fetcher': oneFetcher, 'two fetchers': twoFetchers, 'fetcher killed midway': crash, 'the survivor alone': survivor }
for (const [name, round] of Object.entries(rounds)) {
  const refusals = [...round.refused].map(([code, n]) => `${n} ${code}`).join(', ') || 'none'
  console.log(`round with ${name}: ${JOBS} jobs in ${round.seconds.toFixed(1)} s (${(JOBS / round.seconds).toFixed(1)} jobs/s; all admitted after ${round.admittedSeconds.toFixed(1)} s, submission p50 ${round.admissionP50Ms.toFixed(0)} ms, refusals retried: ${refusals}); CPU ms per job: ${round.cpuMsPerJob}`)
}
const allIds = [...warmUp.ids, ...joinRounds.flatMap((round) => round.ids), ...Object.values(rounds).flatMap((round) => round.ids)]
const counts = terminalCounts(eventsFile)
check(allIds.length === WARM_UP_JOBS * (1 + joinRounds.length) + 4 * JOBS && allIds.every((id) => counts.get(id) === 1), 'a job did not reach exactly one terminal state')
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
await waitFor(async () => (await mongo.db(env.MONGO_DB!).collection('rm_jobs').countDocuments({ status: { $in: ['succeeded', 'failed'] } })) === allIds.length, 300_000, 200)
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
console.log(`replay into MongoDB: ${((performance.now() - replayStarted) / 1000).toFixed(1)} s for ${stored.length} events (at ${elapsed()})`)
const replayed = await snapshot(`e2e_${runId}_replay`)
const differing = [...new Set([...Object.keys(live), ...Object.keys(replayed)])].filter((name) => JSON.stringify(live[name]) !== JSON.stringify(replayed[name]))
check(differing.length === 0, `the MongoDB read models differ from a replay: ${differing.join(', ')}`)
await mongo.close()

await stopAll()

// --- embedded run, same jobs ---
const { api_key: embeddedKey } = await runCli(embeddedEnv, ['org', 'create', '--name', 'E2E', '--plan', 'enterprise', ...keyLimits])
const embedded = await spawn(embeddedEnv)
await waitFor(async () => (await fetch(`${embedded.base}/v1/jobs`, { headers: { 'x-api-key': embeddedKey } })).status === 200, 60_000, 100)
const embeddedRun = await runJobs(embedded.base, embeddedKey, JOBS, () => terminalCounts(join(embeddedEnv.DATA_DIR, 'events.db')).size)
const keyRefusals = [warmUp, ...joinRounds, ...Object.values(rounds), embeddedRun].flatMap((round) => KEY_LIMIT_CODES.filter((code) => round.refused.has(code)))
check(keyRefusals.length === 0, `submissions were refused by the key's own limits (${[...new Set(keyRefusals)].join(', ')}): the rounds measured the key`)
await stopAll()
await site.close()
await cleanUp()

const rate = (r: { seconds: number }) => JOBS / r.seconds
console.log(`embedded round: ${JOBS} jobs in ${embeddedRun.seconds.toFixed(1)} s (${rate(embeddedRun).toFixed(1)} jobs/s; all admitted after ${embeddedRun.admittedSeconds.toFixed(1)} s, submission p50 ${embeddedRun.admissionP50Ms.toFixed(0)} ms)`)
console.log(`scale-out ${rate(twoFetchers).toFixed(1)} jobs/s vs embedded ${rate(embeddedRun).toFixed(1)} jobs/s (ratio: ${(rate(twoFetchers) / rate(embeddedRun)).toFixed(2)})`)
console.log(`two fetchers ${rate(twoFetchers).toFixed(1)} jobs/s vs one fetcher ${rate(oneFetcher).toFixed(1)} jobs/s (ratio: ${(rate(twoFetchers) / rate(oneFetcher)).toFixed(2)})`)
console.log(`the crash's survivor alone ${rate(survivor).toFixed(1)} jobs/s vs one fresh fetcher ${rate(oneFetcher).toFixed(1)} jobs/s (${(rate(survivor) / rate(oneFetcher)).toFixed(2)} of it)`)
console.log(problems.length === 0
  ? `e2e:scale-out OK: ${allIds.length} jobs, each exactly one terminal state (fetcher killed after ${killedAt} of a round's jobs finished), ${stored.length} events in Kafka in per-stream order, ${Object.keys(live).length} MongoDB read models equal a replay`
  : `e2e:scale-out FAILED: ${problems.join('; ')}`)
process.exit(problems.length === 0 ? 0 : 1)
