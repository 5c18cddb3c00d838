import type { ServerResponse } from 'node:http'
import t from 'tap'
import { makeManualClock } from '../../infra/clock/manual.js'
import { startFixtureSite } from '../fixtures/site.js'
import { signUp } from '../helpers/account.js'
import { startService, waitFor } from '../helpers/service.js'

// A target that answers only when the test lets it, a manual clock for the wait, and no browser binary (browser jobs fail).
const hanging: ServerResponse[] = []
const site = await startFixtureSite({ '/hang': (_req, res) => { hanging.push(res) } })
t.teardown(() => { for (const res of hanging) res.destroy(); return site.close() })
const clock = makeManualClock(new Date('2026-05-01T10:00:00Z'))
const svc = await startService({
  allowlist: [`127.0.0.1:${site.port}`], clock, env: { LOGIN_ATTEMPTS_PER_MINUTE: '1000', CHROMIUM_PATH: '/nonexistent/chromium' },
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

t.test('a target slower than timeout + 15 s: 504 errorCode timeout at that instant on the clock; the late result is recorded', async (t) => {
  const user = await signUp(svc)
  const asked = clock.now().getTime()
  // The fetch may take 60 s (its own timeout), so the wait runs out first: at 75 s by the service's clock.
  const answer = svc.api('POST', '/scrapes', { headers: user.bearer, body: { url: `${site.origin}/hang`, backend: 'httpx', timeout: 60 } })
  let answered = false
  void answer.then(() => { answered = true })
  await waitFor(() => hanging.length === 1, 10_000)
  clock.set(new Date(asked + 74_999))
  await new Promise((r) => setTimeout(r, 300))
  t.notOk(answered, 'no answer 1 ms before timeout + 15 s')
  clock.set(new Date(asked + 75_000))
  const reached = Date.now()
  const waited = await answer
  t.ok(Date.now() - reached < 1000, `answered ${Date.now() - reached} ms after the clock reached timeout + 15 s`)
  t.equal(waited.status, 504)
  t.type(waited.body.errorMessage, 'string')
  t.same({ ...waited.body, errorMessage: undefined }, {
    id: waited.body.id, jobId: waited.body.id, resultId: null, resultKey: null, status: 'failed', ok: false, statusCode: null, headers: null,
    html: null, htmlKey: null, screenshot: null, screenshotKey: null, errorCode: 'timeout', errorMessage: undefined,
  })
  const pending = await svc.api('GET', `/scrapes/${waited.body.id}`, { headers: user.bearer })
  t.same([pending.body.status, pending.body.errorCode, pending.body.completedAt], ['failed', 'timeout', null], 'the job goes on')

  // The target answers at last: the job's late result is recorded on the scrape answered 504, which is not orphaned.
  hanging[0]!.writeHead(200, { 'content-type': 'text/html' })
  hanging[0]!.end('<html><body><p>Late</p></body></html>')
  await waitFor(async () => (await svc.api('GET', `/scrapes/${waited.body.id}`, { headers: user.bearer })).body.completedAt !== null, 20_000)
  const late = await svc.api('GET', `/scrapes/${waited.body.id}`, { headers: user.bearer })
  t.same([late.body.status, late.body.errorCode, late.body.statusCode], ['failed', 'timeout', 200], 'still what the caller was told, with the late status')
  t.equal((await svc.api('GET', '/scrapes?status=pending', { headers: user.bearer })).body.total, 0, 'no scrape is left pending')
})
