/**
 * bench:light — N light jobs through the API (separate service process, embedded profile) against a local fixture
 * server, beside a raw fetch loop of the light tier's HTTP client (chromium-client, the same Chromium profile, through
 * an egress gateway of the bench's own as the service's fetches go through the service's, no service), and beside
 * Crawlee's HttpCrawler when `@crawlee/http` is installed, against the same server in the same run.
 */
import { parseAllowlist } from '../domain/address-policy.js'
import { startEgressGateway } from '../fetchers/egress/index.js'
import { startFixtureSite } from '../test/fixtures/site.js'
import { waitFor } from '../test/helpers/service.js'
import { benchDataDir } from './data-dir.js'
import { runCli, spawnService } from '../test/helpers/process.js'
import { rawLightFetch, stopRawLightClient } from './raw-light-fetch.js'
import { runCrawleeBaseline } from './crawlee-baseline.js'
import { fmt, percentile, pool } from './stats.js'
import { serviceClient } from './service-client.js'
import { processCpuMs, settled } from './process-cpu.js'

const N = Number(process.env.BENCH_JOBS ?? 300)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)

const site = await startFixtureSite()
const env = { DATA_DIR: benchDataDir('bench-light'), SSRF_ALLOWLIST: `127.0.0.1:${site.port}`, FETCHER_CONCURRENCY: String(CONCURRENCY), LOG_LEVEL: 'error' }
const { api_key: adminKey } = await runCli(env, ['org', 'create', '--name', 'Bench', '--plan', 'enterprise', '--rate-limit-rpm', '100000', '--daily-quota', '100000000'])
// BENCH_CPU_PROF=DIR writes the service's CPU profile (node --cpu-prof) into DIR when it stops.
const profileDir = process.env.BENCH_CPU_PROF
const service = await spawnService(env, [], profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [])
process.on('exit', () => service.child.kill('SIGKILL')) // also when the bench fails half-way
// A key whose request rate is not the limit being measured.
await waitFor(async () => (await fetch(`${service.base}/v1/keys`, { headers: { 'x-api-key': adminKey } })).status === 200, 30_000)
const created = await fetch(`${service.base}/v1/keys`, {
  method: 'POST', headers: { 'x-api-key': adminKey, 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'bench', scopes: ['jobs.create', 'jobs.read'], rate_limit_rpm: 100_000, daily_quota: 100_000_000 }),
})
if (created.status !== 201) throw new Error(`creating the bench key answered ${created.status}: ${await created.text()}`)
const { api_key: key } = (await created.json()) as { api_key: string }
const client = serviceClient(service.base, { 'x-api-key': key, 'content-type': 'application/json' }, CONCURRENCY)

const runServiceJobs = async (count: number) => {
  const latencies: number[] = []
  const started = performance.now()
  const serviceCpu = processCpuMs(service.child.pid!)
  const benchCpu = process.cpuUsage()
  await pool(count, CONCURRENCY, async () => {
    const t0 = performance.now()
    await client.awaitSucceededResult(await client.submitJob({ job_type: 'light', target_url: `${site.origin}/page` }))
    latencies.push(performance.now() - t0)
  })
  const serviceCpuAfter = processCpuMs(service.child.pid!)
  const benchCpuUsed = process.cpuUsage(benchCpu)
  return {
    seconds: (performance.now() - started) / 1000, latencies,
    cpuMsPerJob: serviceCpu && serviceCpuAfter ? {
      service: (serviceCpuAfter.own - serviceCpu.own) / count, mainThread: (serviceCpuAfter.mainThread - serviceCpu.mainThread) / count,
      client: (serviceCpuAfter.children - serviceCpu.children) / count,
    } : null,
    benchCpuMsPerJob: (benchCpuUsed.user + benchCpuUsed.system) / 1000 / count,
  }
}

// The service's fetches pass its egress gateway (a CONNECT tunnel per kept-alive connection): the raw loop passes one too.
const gateway = await startEgressGateway({ allowlist: parseAllowlist(env.SSRF_ALLOWLIST) })
const runRawClient = async (count: number) => {
  const latencies: number[] = []
  const started = performance.now()
  await pool(count, CONCURRENCY, async () => { latencies.push(await rawLightFetch(`${site.origin}/page`, gateway.url)) })
  return { seconds: (performance.now() - started) / 1000, latencies }
}

await runServiceJobs(Math.min(30, N)) // warm-up
await settled(service.child.pid!)
await runRawClient(Math.min(30, N))
const svc = await runServiceJobs(N)
const raw = await runRawClient(N)
// The same page set and concurrency, on Crawlee's HttpCrawler (warmed up first, like the others).
const crawleeWarm = await runCrawleeBaseline(`${site.origin}/page`, Math.min(30, N), CONCURRENCY)
const crawlee = crawleeWarm === null ? null : await runCrawleeBaseline(`${site.origin}/page`, N, CONCURRENCY)
await client.close()
service.child.kill('SIGTERM')
await service.exited
await site.close()
await stopRawLightClient()
await gateway.close()

const svcRate = N / svc.seconds
const rawRate = N / raw.seconds
console.log(`bench:light  jobs=${N} concurrency=${CONCURRENCY}`)
console.log(`service  ${fmt(svcRate)} jobs/s   submit-to-result p50 ${fmt(percentile(svc.latencies, 50))} ms  p99 ${fmt(percentile(svc.latencies, 99))} ms`)
if (svc.cpuMsPerJob) console.log(`service CPU per job ${fmt(svc.cpuMsPerJob.service, 2)} ms, main thread ${fmt(svc.cpuMsPerJob.mainThread, 2)} ms (its light-tier client ${fmt(svc.cpuMsPerJob.client, 2)} ms); bench's own ${fmt(svc.benchCpuMsPerJob, 2)} ms`)
console.log(`raw client (through an egress gateway) ${fmt(rawRate)} fetches/s  p50 ${fmt(percentile(raw.latencies, 50))} ms  p99 ${fmt(percentile(raw.latencies, 99))} ms`)
if (crawlee) console.log(`crawlee HttpCrawler ${fmt(N / crawlee.seconds)} pages/s`)
else console.log('crawlee HttpCrawler not installed (@crawlee/http is a dev dependency): no Crawlee ratio')
console.log(`ratio: ${(svcRate / rawRate).toFixed(2)}  (service / raw client; goal at least 0.50)`)
if (crawlee) console.log(`ratio: ${(svcRate / (N / crawlee.seconds)).toFixed(2)}  (service / Crawlee HttpCrawler; goal at least 1.00)`)
