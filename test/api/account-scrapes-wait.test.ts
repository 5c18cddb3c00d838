import t from 'tap'
import { startFixtureSite } from '../fixtures/site.js'
import { signUp } from '../helpers/account.js'
import { startService, waitFor } from '../helpers/service.js'

// One fetcher slot, so a target that never answers holds up the next scrape; no browser binary, so browser jobs fail.
const site = await startFixtureSite({ '/never': () => { /* never answers */ } })
t.teardown(() => site.close())
const svc = await startService({
  allowlist: [`127.0.0.1:${site.port}`],
  env: { LOGIN_ATTEMPTS_PER_MINUTE: '1000', FETCHER_CONCURRENCY: '1', CHROMIUM_PATH: '/nonexistent/chromium' },
})
t.teardown(() => svc.close())

t.test('the pipeline failing (no browser binary) answers 502 gateway_error', async (t) => {
  const user = await signUp(svc)
  const answer = await svc.api('POST', '/scrapes', { headers: user.bearer, body: { url: `${site.origin}/page`, backend: 'playwright' } })
  t.equal(answer.status, 502)
  t.equal(answer.body.ok, false)
  t.equal(answer.body.status, 'failed')
  t.equal(answer.body.errorCode, 'gateway_error')
  t.match(answer.body.errorMessage, /browser|chromium/i)
  t.equal(answer.body.html, null)
  const got = await svc.api('GET', `/scrapes/${answer.body.id}`, { headers: user.bearer })
  t.same([got.body.status, got.body.errorCode], ['failed', 'gateway_error'])
})

t.test('no result within timeout + 15 s: 504 errorCode timeout at that instant; the late result is still recorded', async (t) => {
  const user = await signUp(svc)
  // The only fetcher slot hangs on a target that never answers for 22 s.
  const blocker = svc.api('POST', '/scrapes', { headers: user.bearer, body: { url: `${site.origin}/never`, backend: 'httpx', timeout: 22 } })
  await waitFor(() => site.load.inFlight === 1, 10_000)
  const started = Date.now()
  const waited = await svc.api('POST', '/scrapes', { headers: user.bearer, body: { url: `${site.origin}/page`, backend: 'httpx', timeout: 1 } })
  const elapsed = (Date.now() - started) / 1000
  t.equal(waited.status, 504)
  t.ok(elapsed >= 16 && elapsed < 17, `answered after ${elapsed.toFixed(2)} s, timeout (1) + 15 s`)
  t.same({ ...waited.body, errorMessage: undefined }, {
    id: waited.body.id, jobId: waited.body.id, resultId: null, resultKey: null, status: 'failed', ok: false, statusCode: null, headers: null,
    html: null, htmlKey: null, screenshot: null, screenshotKey: null, errorCode: 'timeout', errorMessage: undefined,
  })
  const pending = await svc.api('GET', `/scrapes/${waited.body.id}`, { headers: user.bearer })
  t.same([pending.body.status, pending.body.errorCode, pending.body.completedAt], ['failed', 'timeout', null])

  const blocked = await blocker
  t.equal(blocked.status, 422, 'the hanging fetch ends at its own timeout')
  t.equal(blocked.body.errorCode, 'timeout')
  // The queued job then runs: its result is recorded on the scrape that was answered 504.
  await waitFor(async () => (await svc.api('GET', `/scrapes/${waited.body.id}`, { headers: user.bearer })).body.completedAt !== null, 20_000)
  const late = await svc.api('GET', `/scrapes/${waited.body.id}`, { headers: user.bearer })
  t.same([late.body.status, late.body.errorCode, late.body.statusCode], ['failed', 'timeout', 200], 'still what the caller was told, with the late status')
  const job = await svc.api('GET', '/scrapes?status=pending', { headers: user.bearer })
  t.equal(job.body.total, 0, 'no scrape is left pending')
})
