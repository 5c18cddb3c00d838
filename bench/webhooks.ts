/**
 * bench:webhooks — N webhook events (pings, each a recorded event on its endpoint's stream, spread round-robin over
 * BENCH_ENDPOINTS endpoints of one receiver) through a separate service process (embedded
 * profile: fan-out, durable delivery records, signing, egress gateway) to a local receiver, beside a raw undici POST
 * loop to the same receiver in the same run. Reports events per second delivered, p99 from the event's commit to its
 * first attempt reaching the receiver, and `ratio: X.XX` (service events/s ÷ raw POSTs/s).
 */
import { request } from 'undici'
import { waitFor } from '../test/helpers/service.js'
import { benchDataDir } from './data-dir.js'
import { runCli, spawnService } from '../test/helpers/process.js'
import { startReceiver } from '../test/helpers/webhook-receiver.js'
import { fmt, percentile, pool } from './stats.js'

const N = Number(process.env.BENCH_EVENTS ?? 500)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)
/** Endpoints (one receiver) the pings are spread over, round-robin: each ping is an event on its endpoint's stream. */
const ENDPOINTS = Math.max(1, Number(process.env.BENCH_ENDPOINTS ?? 1))

const receiver = await startReceiver()
const env = { DATA_DIR: benchDataDir('bench-webhooks'), SSRF_ALLOWLIST: receiver.allowlistEntry, WEBHOOK_CONCURRENCY: String(CONCURRENCY), LOG_LEVEL: 'error' }
const { api_key: key } = await runCli(env, ['org', 'create', '--name', 'Bench', '--plan', 'enterprise', '--rate-limit-rpm', '100000', '--daily-quota', '100000000'])
const service = await spawnService(env)
process.on('exit', () => service.child.kill('SIGKILL')) // also when the bench fails half-way
const headers = { 'x-api-key': key, 'content-type': 'application/json' }
await waitFor(async () => (await fetch(`${service.base}/v1/webhook-endpoints`, { headers })).status === 200, 30_000)
const createEndpoint = async () => {
  const created = await fetch(`${service.base}/v1/webhook-endpoints`, { method: 'POST', headers, body: JSON.stringify({ url: receiver.url, enabled_events: ['job.completed'] }) })
  if (created.status !== 201) throw new Error(`creating the endpoint answered ${created.status}: ${await created.text()}`)
  return ((await created.json()) as { endpoint_id: string }).endpoint_id
}
const endpointIds: string[] = []
for (let i = 0; i < ENDPOINTS; i++) endpointIds.push(await createEndpoint())

const runService = async (count: number) => {
  const before = receiver.received.length
  const started = performance.now()
  await pool(count, CONCURRENCY, async (i) => {
    const endpointId = endpointIds[i % ENDPOINTS]
    const res = await fetch(`${service.base}/v1/webhook-endpoints/${endpointId}/test`, { method: 'POST', headers: { 'x-api-key': key } })
    if (res.status !== 202) throw new Error(`ping answered ${res.status}: ${await res.text()}`)
    await res.arrayBuffer()
  })
  await waitFor(() => receiver.received.length - before >= count, 300_000, 5)
  const seconds = (performance.now() - started) / 1000
  const arrivals = receiver.received.slice(before)
  // created_at is the source event's commit time; the receiver notes when the first attempt reached it.
  const latencies = arrivals.map((r) => r.at - Date.parse(r.event.created_at))
  return { seconds, latencies }
}

const runRaw = async (count: number) => {
  const latencies: number[] = []
  const body = JSON.stringify({ event_id: 'evt_raw', type: 'ping', created_at: new Date().toISOString(), data: {} })
  const started = performance.now()
  await pool(count, CONCURRENCY, async () => {
    const t0 = performance.now()
    const res = await request(receiver.url, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
    await res.body.text()
    latencies.push(performance.now() - t0)
  })
  return { seconds: (performance.now() - started) / 1000, latencies }
}

await runService(Math.min(50, N)) // warm-up (compilation, first connections)
const svc = await runService(N)
const raw = await runRaw(N)
const svcRate = N / svc.seconds
const rawRate = N / raw.seconds
console.log(`webhooks: ${N} events over ${ENDPOINTS} endpoint(s), concurrency ${CONCURRENCY}, receiver on 127.0.0.1`)
console.log(`service: ${fmt(svcRate)} events/s delivered; commit → first attempt p50 ${fmt(percentile(svc.latencies, 50))} ms, p99 ${fmt(percentile(svc.latencies, 99))} ms`)
console.log(`raw undici POST loop: ${fmt(rawRate)} POSTs/s; p50 ${fmt(percentile(raw.latencies, 50))} ms, p99 ${fmt(percentile(raw.latencies, 99))} ms`)
console.log(`ratio: ${fmt(svcRate / rawRate, 2)}`)
service.child.kill('SIGTERM')
await service.exited
await receiver.close()
process.exit(0)
