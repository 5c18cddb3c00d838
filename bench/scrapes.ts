/**
 * bench:scrapes — POST /scrapes (httpx) through the account API of a separate service process against a local page,
 * one request at a time (a Free organization runs 2 jobs at once), beside a raw fetch of the same page with the light
 * tier's own HTTP client (chromium-client, same Chromium profile, no gateway, no service) in the same run: the latency the
 * service adds to a synchronous scrape.
 */
import { startFixtureSite } from '../test/fixtures/site.js'
import { verificationLink } from '../test/helpers/mail.js'
import { waitFor } from '../test/helpers/service.js'
import { benchDataDir } from './data-dir.js'
import { spawnService } from '../test/helpers/process.js'
import { rawLightFetch, stopRawLightClient } from './raw-light-fetch.js'
import { fmt, percentile } from './stats.js'

const N = Number(process.env.BENCH_SCRAPES ?? 200)

const site = await startFixtureSite()
const env = {
  DATA_DIR: benchDataDir('bench-scrapes'), SSRF_ALLOWLIST: `127.0.0.1:${site.port}`, LOG_LEVEL: 'error',
  // The per-user request rate is not what is measured.
  SCRAPES_PER_MINUTE: '1000000',
}
const service = await spawnService(env)
process.on('exit', () => service.child.kill('SIGKILL')) // also when the bench fails half-way
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${service.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
const credentials = { email: 'bench@example.com', password: 'bench password' }
await waitFor(async () => (await post('/register', credentials)).status === 202, 30_000)
// Scrapes are for verified users: open the link of the verification e-mail (the outbox folder of DATA_DIR).
const link = await verificationLink(env.DATA_DIR, credentials.email)
await fetch(`${service.base}${link.pathname}${link.search}`)
const token = (await (await post('/token', credentials)).json()) as { access_token: string }
const auth = { authorization: `Bearer ${token.access_token}` }

const runScrapes = async (count: number) => {
  const latencies: number[] = []
  for (let i = 0; i < count; i++) {
    const t0 = performance.now()
    const res = await post('/scrapes', { url: `${site.origin}/page`, backend: 'httpx' }, auth)
    const body = (await res.json()) as { ok: boolean; html: string | null }
    if (res.status !== 200 || !body.ok || !body.html) throw new Error(`scrape answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`)
    latencies.push(performance.now() - t0)
  }
  return latencies
}

const runRawClient = async (count: number) => {
  const latencies: number[] = []
  for (let i = 0; i < count; i++) latencies.push(await rawLightFetch(`${site.origin}/page`))
  return latencies
}

await runScrapes(Math.min(20, N)) // warm-up
await runRawClient(Math.min(20, N))
const scrapes = await runScrapes(N)
const raw = await runRawClient(N)
service.child.kill('SIGTERM')
await service.exited
await site.close()
await stopRawLightClient()

const p = (values: number[], q: number) => percentile(values, q)
console.log(`bench:scrapes  requests=${N} (one at a time, backend httpx)`)
console.log(`POST /scrapes  p50 ${fmt(p(scrapes, 50))} ms  p99 ${fmt(p(scrapes, 99))} ms`)
console.log(`raw client     p50 ${fmt(p(raw, 50))} ms  p99 ${fmt(p(raw, 99))} ms`)
console.log(`added latency  p50 ${fmt(p(scrapes, 50) - p(raw, 50))} ms  p99 ${fmt(p(scrapes, 99) - p(raw, 99))} ms`)
console.log(`ratio: ${(p(scrapes, 50) / p(raw, 50)).toFixed(2)}`)
