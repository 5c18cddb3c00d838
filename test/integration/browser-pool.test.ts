import t from 'tap'
import { BrowserUnavailable, type LaunchedBrowser } from '../../fetchers/browser/driver.js'
import { BrowserPool } from '../../fetchers/browser/pool.js'
import { startService } from '../helpers/service.js'
import { jobClient } from '../fixtures/browser-site.js'

// The browser pool's rules with stand-in browsers (no Chromium): bounded concurrency, reuse, recycling, recovery.

interface FakeBrowser extends LaunchedBrowser { readonly serial: number; closed: boolean; kill(): void }

const makeLauncher = () => {
  const launched: FakeBrowser[] = []
  const launch = async (): Promise<FakeBrowser> => {
    await new Promise((r) => setTimeout(r, 5))
    const listeners: (() => void)[] = []
    let connected = true
    const end = () => { if (!connected) return; connected = false; for (const l of listeners) l() }
    const browser: FakeBrowser = {
      serial: launched.length + 1, closed: false, version: '1.0.0.0', pid: 10_000 + launched.length,
      isConnected: () => connected,
      onDisconnected: (listener) => { listeners.push(listener) },
      newSession: async () => { throw new Error('not used') },
      close: async () => { browser.closed = true; end() },
      kill: end,
    }
    launched.push(browser)
    return browser
  }
  return { launched, launch }
}

const settings = { poolSize: 2, pagesPerProcess: 100, memoryGrowthMb: 0, idleMs: 60_000 }

t.test('at most poolSize jobs hold a browser at once; the rest wait in order', async (t) => {
  const { launch } = makeLauncher()
  const pool = new BrowserPool<string>({ ...settings, launch, keyOf: (k) => k })
  t.teardown(() => pool.close())
  let holding = 0
  let peak = 0
  const order: number[] = []
  await Promise.all(Array.from({ length: 6 }, async (_, i) => {
    const lease = await pool.lease('a')
    holding += 1
    peak = Math.max(peak, holding)
    order.push(i)
    await new Promise((r) => setTimeout(r, 20))
    holding -= 1
    await lease.release()
  }))
  t.equal(peak, 2)
  t.same(order, [0, 1, 2, 3, 4, 5], 'first come, first served')
})

t.test('browsers are reused per profile; jobs arriving together share one launch', async (t) => {
  const { launch, launched } = makeLauncher()
  const pool = new BrowserPool<string>({ ...settings, poolSize: 4, launch, keyOf: (k) => k })
  t.teardown(() => pool.close())
  const together = await Promise.all([pool.lease('a'), pool.lease('a')])
  t.equal(launched.length, 1, 'one launch for two simultaneous jobs')
  t.equal(together[0].browser, together[1].browser)
  await Promise.all(together.map((l) => l.release()))
  const again = await pool.lease('a')
  t.equal(again.browser, together[0].browser, 'reused')
  const other = await pool.lease('b')
  t.not(other.browser, again.browser, 'another profile gets its own process')
  t.equal(launched.length, 2)
  await again.release()
  await other.release()
})

t.test('a browser is replaced after pagesPerProcess pages, once its jobs are done', async (t) => {
  const { launch, launched } = makeLauncher()
  const pool = new BrowserPool<string>({ ...settings, pagesPerProcess: 2, launch, keyOf: (k) => k })
  t.teardown(() => pool.close())
  for (let i = 0; i < 5; i++) await (await pool.lease('a')).release()
  t.equal(launched.length, 3, '5 pages at 2 per process')
  t.ok(launched[0]!.closed && launched[1]!.closed, 'retired processes are closed')
  t.notOk(launched[2]!.closed)
})

t.test('a browser whose memory grew past the limit is replaced', async (t) => {
  const { launch, launched } = makeLauncher()
  const readings = new Map<number, number>()
  const pool = new BrowserPool<string>({
    ...settings, memoryGrowthMb: 300, launch, keyOf: (k) => k,
    memoryMb: async (pid) => { const n = (readings.get(pid) ?? 0) + 1; readings.set(pid, n); return n === 1 ? 200 : n === 2 ? 400 : 900 },
  })
  t.teardown(() => pool.close())
  await (await pool.lease('a')).release() // grew 200 MB: kept
  t.equal(launched.length, 1)
  await (await pool.lease('a')).release() // grew 700 MB: retired
  t.ok(launched[0]!.closed)
  await (await pool.lease('a')).release()
  t.equal(launched.length, 2)
})

t.test('a browser that dies is forgotten: its lease reports it, the next job gets a new one', async (t) => {
  const { launch, launched } = makeLauncher()
  const pool = new BrowserPool<string>({ ...settings, launch, keyOf: (k) => k })
  t.teardown(() => pool.close())
  const lease = await pool.lease('a')
  t.notOk(lease.died())
  launched[0]!.kill()
  t.ok(lease.died())
  await lease.release()
  const next = await pool.lease('a')
  t.equal(launched.length, 2)
  t.equal(next.browser, launched[1])
  await next.release()
})

t.test('a failed launch gives the slot back', async (t) => {
  const { launch } = makeLauncher()
  let fail = true
  const pool = new BrowserPool<string>({
    ...settings, poolSize: 1, keyOf: (k) => k,
    launch: async () => { if (fail) throw new BrowserUnavailable('no chromium'); return launch() },
  })
  t.teardown(() => pool.close())
  await t.rejects(pool.lease('a'), BrowserUnavailable)
  fail = false
  const lease = await pool.lease('a')
  t.ok(lease.browser.isConnected())
  await lease.release()
})

t.test('a waiting job whose signal aborts leaves the queue', async (t) => {
  const { launch } = makeLauncher()
  const pool = new BrowserPool<string>({ ...settings, poolSize: 1, launch, keyOf: (k) => k })
  t.teardown(() => pool.close())
  const held = await pool.lease('a')
  const controller = new AbortController()
  const waiting = pool.lease('a', controller.signal)
  controller.abort(new Error('shutting down'))
  await t.rejects(waiting, /shutting down/)
  await held.release()
  const next = await pool.lease('a')
  await next.release()
})

t.test('without a Chromium binary, browser jobs fail with browser_unavailable and a clear message', async (t) => {
  const svc = await startService({ allowlist: ['127.0.0.1:9'], env: { CHROMIUM_PATH: '/nonexistent/chromium' } })
  t.teardown(() => svc.close())
  const { key } = await svc.createOrg('pro')
  const jobs = jobClient(svc, key)
  for (const job_type of ['standard', 'stealth']) {
    const job = await jobs.run({ job_type, target_url: 'http://127.0.0.1:9/' })
    t.equal(job.status, 'failed', job_type)
    t.equal(job.failure_reason, 'browser_unavailable')
    t.match(job.failure_message, 'no Chromium executable at /nonexistent/chromium')
    t.match(job.failure_message, 'CHROMIUM_PATH')
  }
})
