import t from 'tap'
import { makeManualClock } from '../../infra/clock/manual.js'
import { startFixtureSite } from '../fixtures/site.js'
import { signUp } from '../helpers/account.js'
import { outboxMessages } from '../helpers/mail.js'
import { startService } from '../helpers/service.js'

// Issue 32: an unverified user could scrape and create content monitors, and POST /register was not throttled.
const site = await startFixtureSite({ '/page': (_req, res) => { res.setHeader('content-type', 'text/html'); res.end('<p>hello</p>') } })
t.teardown(() => site.close())
const clock = makeManualClock(new Date('2026-05-01T10:20:00Z'))
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`], clock, env: { LOGIN_ATTEMPTS_PER_MINUTE: '1000', REGISTRATIONS_PER_HOUR: '3' } })
t.teardown(() => svc.close())

// Registrations of the first test count against the address's hour; the throttling test moves the clock to a fresh hour.
t.test('an unverified user creates no work: 403 email_not_verified on every route that would, and nothing is created', async (t) => {
  const user = await signUp(svc, { verified: false })
  const monitor = { url: `${site.origin}/page`, backend: 'httpx', frequencyMinutes: 5, rule: { type: 'any_change' } }
  const refused = [
    ...await Promise.all(['httpx', 'playwright', 'scrapling'].map((backend) => svc.api('POST', '/scrapes', { headers: user.bearer, body: { url: `${site.origin}/page`, backend } }))),
    await svc.api('POST', '/content-monitors', { headers: user.bearer, body: monitor }),
    await svc.api('PATCH', '/content-monitors/any', { headers: user.bearer, body: { status: 'active' } }),
    await svc.api('POST', '/content-monitors/any/runs', { headers: user.bearer, body: { force: true } }),
    await svc.api('POST', '/api-keys', { headers: user.bearer, body: { name: 'k' } }),
    await svc.api('POST', '/scrapes', { headers: await user.session(), body: { url: `${site.origin}/page`, backend: 'httpx' } }),
  ]
  t.same(refused.map((a) => [a.status, a.body]), refused.map(() => [403, { detail: 'email_not_verified' }]))
  t.equal((await svc.api('GET', '/scrapes', { headers: user.bearer })).body.total, 0, 'no scrape recorded')
  t.equal((await svc.api('GET', '/content-monitors', { headers: user.bearer })).body.total, 0, 'no monitor created')
  t.equal((await svc.api('GET', '/me', { headers: user.bearer })).status, 200, 'reading is allowed')
})

t.test('POST /register: at most REGISTRATIONS_PER_HOUR attempts per client address in a clock hour, then 429 with Retry-After', async (t) => {
  clock.set('2026-05-01T11:00:00Z')
  const register = (email: string) => svc.api('POST', '/register', { body: { email, password: 'correct horse battery' } })
  const emails = [1, 2, 3, 4].map((n) => `throttle${n}-${Date.now()}@example.com`)
  const answers = [await register(emails[0]!), await register(emails[1]!), await register('not-an-address'), await register(emails[3]!)]
  t.same(answers.map((a) => a.status), [202, 202, 422, 429], 'every attempt counts, a refused one too')
  const throttled = answers[3]!
  t.same(throttled.body, { detail: 'too_many_registrations' })
  t.equal(throttled.headers.get('retry-after'), '3600', 'until the hour ends on the service clock')
  t.equal(throttled.headers.get('x-ratelimit-limit'), '3')
  t.equal(throttled.headers.get('x-ratelimit-remaining'), '0')
  t.equal(throttled.headers.get('x-ratelimit-reset'), String(Date.parse('2026-05-01T12:00:00Z') / 1000))
  t.notOk(outboxMessages(svc.dataDir).some((m) => m.headers.to === emails[3]), 'no mail for the refused registration')
  t.equal((await svc.api('POST', '/login', { body: { email: emails[3], password: 'correct horse battery' } })).status, 401, 'no user for it')

  clock.advance(59 * 60_000)
  const stillRefused = await register(emails[3]!)
  t.equal(stillRefused.status, 429)
  t.equal(stillRefused.headers.get('retry-after'), '60')
  clock.advance(60_000)
  t.equal((await register(emails[3]!)).status, 202, 'a new hour starts a new count')
})
