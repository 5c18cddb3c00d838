/**
 * bench:replay — `cli replay` speed on the embedded profile (or into MongoDB, see below): a generated log of BENCH_EVENTS events (default 200,000:
 * organizations with keys, then jobs requested, started and finished with artifacts), rebuilt from position 0 into
 * every read model in a fresh process (bench/replay-rebuild.ts), as `cli replay` runs. The baseline of the same run is
 * reading the whole log without projecting it.
 */
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { promisify } from 'node:util'
import { Effect } from 'effect'
import { DEFAULT_KEY_LIMITS } from '../commands/orgs.js'
import { encodeEvent } from '../domain/events.js'
import { parseAllowlist } from '../domain/address-policy.js'
import { validateJobSpec } from '../domain/job/spec.js'
import { JobFailed, JobRequested, JobStarted, JobSucceeded } from '../domain/job/events.js'
import { ApiKeyCreated, OrgCreated } from '../domain/org/events.js'
import type { DomainEvent } from '../domain/streams.js'
import { STREAMS } from '../domain/streams.js'
import { loadConfig } from '../infra/config.js'
import { startProcess } from '../infra/process.js'
import { EventStore, type NewEvent } from '../ports/event-store.js'
import { benchDataDir } from './data-dir.js'
import type { Timed } from './replay-rebuild.js'
import { fmt } from './stats.js'

const TOTAL = Number(process.env.BENCH_EVENTS ?? 200_000)
const ORGS = 20
const metadata = { correlation_id: 'bench', causation_id: null, actor: 'bench' }
const silent = { info: () => {}, warn: () => {}, error: () => {} }

// READ_MODEL_STORE=mongodb with MONGO_URL (and MONGO_DB) replays into MongoDB instead of SQLite.
const readModelStore = Object.fromEntries(['READ_MODEL_STORE', 'MONGO_URL', 'MONGO_DB'].flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])))
const config = loadConfig({ DATA_DIR: benchDataDir('bench-replay'), LOG_LEVEL: 'silent', ...readModelStore })
const service = await startProcess(config, [], silent)

/** One valid light spec, as POST /v1/jobs would record it. */
const checked = validateJobSpec({ job_type: 'light', target_url: 'https://example.com/page', tags: ['bench'] }, { allowlist: parseAllowlist(''), isTimeZone: () => true })
if (!checked.ok) throw new Error(`the bench's job spec is invalid: ${JSON.stringify(checked.errors)}`)
const spec = checked.spec

const stored = (orgId: string, event: DomainEvent, at: string): NewEvent =>
  ({ event_id: randomUUID(), ...encodeEvent(event), org_id: orgId, occurred_at: at, metadata })

/** Appends the generated log: per organization its creation and a key, then jobs of three or four events each. */
const generate = Effect.gen(function* () {
  const store = yield* EventStore
  let written = 0
  const day = Date.parse('2026-06-01T00:00:00Z')
  const orgs = Array.from({ length: ORGS }, (_, i) => ({ org: randomUUID(), key: randomUUID(), name: `bench-${i}` }))
  for (const { org, key, name } of orgs) {
    const at = new Date(day).toISOString()
    yield* store.append(STREAMS.org.stream(org), [
      stored(org, new OrgCreated({ org_id: org, name, plan: 'enterprise', created_at: at }), at),
      stored(org, new ApiKeyCreated({
        key_id: key, org_id: org, name: 'bench', key_hash: randomUUID(), key_prefix: 'sk_bench', scopes: ['jobs.create', 'jobs.read'],
        limits: DEFAULT_KEY_LIMITS, expires_at: null, created_at: at,
      }), at),
    ], 'no_stream')
    written += 2
  }
  for (let n = 0; written < TOTAL; n++) {
    const { org, key } = orgs[n % ORGS]!
    const job = randomUUID()
    const at = (offset: number) => new Date(day + n * 1000 + offset).toISOString()
    const artifact = {
      artifact_id: randomUUID(), artifact_type: 'html', content_type: 'text/html', size: 2048, sha256: 'a'.repeat(64),
      blob_key: `${org}/${job}/html`, created_at: at(300),
    }
    const outcome = n % 10 === 9
      ? new JobFailed({ job_id: job, failure_reason: 'http_error', message: 'target answered 503', manifest: { status_code: 503 }, finished_at: at(300) })
      : new JobSucceeded({ job_id: job, manifest: { status_code: 200, final_url: `https://example.com/${n}` }, artifacts: [artifact], finished_at: at(300) })
    const events = [
      new JobRequested({ origin: { _tag: 'api' }, job_id: job, org_id: org, api_key_id: key, spec, credit_weight: 1, requested_at: at(0) }),
      new JobStarted({ job_id: job, attempt: 1, worker_id: 'bench', started_at: at(10) }),
      outcome,
    ]
    yield* store.append(STREAMS.job.stream(job), events.map((e) => stored(org, e, at(0))), 'no_stream')
    written += events.length
  }
  return written
})

const t0 = performance.now()
const generatedEvents = await service.run(generate as never) as number
console.log(`generated ${generatedEvents} events in ${fmt((performance.now() - t0) / 1000)} s`)
// Closed (its last checkpoint written) before the rebuild, which runs in a fresh process as `cli replay` does: not in
// this one's heap of 200,000 generated events, nor beside the checkpoint of the log it just wrote.
await service.close()
const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bench/replay-rebuild.ts'], {
  env: { ...process.env, DATA_DIR: config.dataDir, LOG_LEVEL: 'silent' }, maxBuffer: 1 << 20,
})
const { baseline, replay } = JSON.parse(stdout) as Record<'baseline' | 'replay', Timed>

const events = generatedEvents
const readRate = (baseline.value as number) / baseline.seconds
const replayRate = events / replay.seconds
console.log(`log read (baseline): ${fmt(readRate, 0)} events/s`)
console.log(`replay: ${fmt(replayRate, 0)} events/s (${fmt(replay.seconds, 2)} s for ${events} events; goal 50000 events/s)`)
console.log(`replay CPU: ${fmt(replay.cpuSeconds, 2)} s (${fmt(events / replay.cpuSeconds, 0)} events per CPU second); log read CPU: ${fmt(baseline.cpuSeconds, 2)} s`)
if (replay.mainThreadSeconds !== null) {
  console.log(`replay main-thread CPU: ${fmt(replay.mainThreadSeconds, 2)} s`)
  // The SQLite writer and log reader threads, the checkpointers and V8's garbage collection and compiler threads.
  console.log(`replay CPU off the main thread: ${fmt(replay.cpuSeconds - replay.mainThreadSeconds, 2)} s`)
}
console.log(`replayed per projection: ${JSON.stringify(replay.value)}`)
console.log(`ratio: ${fmt(replayRate / readRate, 2)}`)
