/**
 * bench:browser — N standard-tier jobs and N stealth-tier jobs through the API (separate service process, embedded
 * profile) against the local browser fixture site, each beside a raw loop of its driver in the same run: playwright-core
 * for standard, puppeteer-real-browser for stealth (one browser, a new context per page, no gateway, no service).
 */
import { chromium } from 'playwright-core'
import { connect } from 'puppeteer-real-browser'
import { SCOPES } from '../domain/scopes.js'
import { BASE_CHROMIUM_FLAGS } from '../fetchers/browser/launch-flags.js'
import { startBrowserSite } from '../test/fixtures/browser-site.js'
import { benchDataDir } from './data-dir.js'
import { runCli, spawnService } from '../test/helpers/process.js'
import { fmt, percentile, pool } from './stats.js'
import { serviceClient } from './service-client.js'

const N = Number(process.env.BENCH_JOBS ?? 24)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 2)
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
const WARMUP = 3

const site = await startBrowserSite()
const target = `${site.origin}/app.html`
const env = {
  DATA_DIR: benchDataDir('bench-browser'), SSRF_ALLOWLIST: `127.0.0.1:${site.port}`, LOG_LEVEL: 'error',
  BROWSER_POOL_SIZE: String(CONCURRENCY), CHROMIUM_PATH: CHROMIUM,
}
const { api_key: adminKey } = await runCli(env, ['org', 'create', '--name', 'Bench', '--plan', 'enterprise', '--rate-limit-rpm', '100000', '--daily-quota', '1000000'])
const service = await spawnService(env)
let client: ReturnType<typeof serviceClient> | undefined

interface Series { readonly seconds: number; readonly latencies: number[] }

const measure = async (count: number, task: () => Promise<void>): Promise<Series> => {
  const latencies: number[] = []
  const started = performance.now()
  await pool(count, CONCURRENCY, async () => {
    const t0 = performance.now()
    await task()
    latencies.push(performance.now() - t0)
  })
  return { seconds: (performance.now() - started) / 1000, latencies }
}

// The raw loops do what the job does by default minus the service: load the page, read the rendered HTML.
// Auto-scroll is off in the jobs (no_scroll) so both sides do the same browser work.
const serviceJob = (job_type: 'standard' | 'stealth') => async () => {
  await client!.awaitSucceededResult(await client!.submitJob({ job_type, target_url: target, artifact_options: { no_scroll: true } }))
}

/** The part of a browser both raw loops need; playwright-core and puppeteer name only the context factory differently. */
interface RawBrowser {
  readonly newContext: () => Promise<{
    newPage: () => Promise<{ goto: (url: string, options: { waitUntil: 'load' }) => Promise<unknown>; content: () => Promise<string> }>
    close: () => Promise<void>
  }>
  readonly close: () => Promise<void>
}

/** One browser, a new context per page: the floor a pool of the same engine is compared with. */
const rawLoop = async (count: number, browser: RawBrowser): Promise<Series> => {
  const once = async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(target, { waitUntil: 'load' })
    await page.content()
    await context.close()
  }
  await measure(WARMUP, once)
  const series = await measure(count, once)
  await browser.close()
  return series
}

const rawPlaywright = async (count: number): Promise<Series> =>
  rawLoop(count, await chromium.launch({ executablePath: CHROMIUM, args: [...BASE_CHROMIUM_FLAGS] }))

const rawRealBrowser = async (count: number): Promise<Series> => {
  const { browser } = await connect({
    headless: true, disableXvfb: true, turnstile: false, args: [...BASE_CHROMIUM_FLAGS],
    customConfig: { chromePath: CHROMIUM, handleSIGINT: false, logLevel: 'silent' }, connectOption: { defaultViewport: null },
  })
  return rawLoop(count, { newContext: () => browser.createBrowserContext(), close: () => browser.close() })
}

const report = (label: string, svc: Series, raw: Series, rawLabel: string) => {
  const perMinute = (s: Series) => (N / s.seconds) * 60
  const line = (name: string, s: Series) =>
    `${name.padEnd(28)} ${fmt(perMinute(s)).padStart(7)} pages/min   p50 ${fmt(percentile(s.latencies, 50)).padStart(7)} ms   p99 ${fmt(percentile(s.latencies, 99)).padStart(7)} ms`
  console.log(`\n${label}  jobs=${N} concurrency=${CONCURRENCY}`)
  console.log(line('service (API, submit→result)', svc))
  console.log(line(rawLabel, raw))
  console.log(`ratio: ${(perMinute(svc) / perMinute(raw)).toFixed(2)}`)
}

try {
  // Result polls count against the key's rate limit (600/min by default): the bench uses a key sized for its polling,
  // so it measures the service rather than 429 back-off.
  const created = await fetch(`${service.base}/v1/keys`, {
    method: 'POST', headers: { 'x-api-key': adminKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', scopes: SCOPES, rate_limit_rpm: 100_000, daily_quota: 1_000_000 }),
  })
  if (created.status !== 201) throw new Error(`could not create the bench key: ${created.status} ${await created.text()}`)
  const { api_key: key } = (await created.json()) as { api_key: string }
  const headers = { 'x-api-key': key, 'content-type': 'application/json' }
  client = serviceClient(service.base, headers, CONCURRENCY)
  for (let i = 0; (await fetch(`${service.base}/v1/jobs`, { headers })).status === 401; i++) {
    if (i > 200) throw new Error('the bench key never became usable')
    await new Promise((r) => setTimeout(r, 25))
  }
  await measure(WARMUP, serviceJob('standard'))
  const standard = await measure(N, serviceJob('standard'))
  const playwright = await rawPlaywright(N)
  await measure(WARMUP, serviceJob('stealth'))
  const stealth = await measure(N, serviceJob('stealth'))
  const realBrowser = await rawRealBrowser(N)
  report('bench:browser standard', standard, playwright, 'raw playwright-core loop')
  report('bench:browser stealth', stealth, realBrowser, 'raw puppeteer-real-browser loop')
} finally {
  await client?.close()
  service.child.kill('SIGTERM')
  await service.exited
  await site.close()
}
