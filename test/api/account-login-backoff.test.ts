import t from 'tap'
import { startService } from '../helpers/service.js'

// The client address comes from X-Forwarded-For (TRUST_PROXY), so each attempt can come from a new address and the
// per-address limit (5 a minute) never applies: only the per-account backoff (5 consecutive failures) does.
const svc = await startService({ env: { TRUST_PROXY: 'true' } })
t.teardown(() => svc.close())

const PASSWORD = 'correct horse battery'
let client = 0
/** Documentation addresses (RFC 5737), only ever written into a header. */
const fromNewClient = () => ({ 'x-forwarded-for': `198.51.100.${++client}` })
const attempt = (path: '/login' | '/token', email: string, password: string) =>
  svc.api('POST', path, { body: { email, password }, headers: fromNewClient() })
const registered = async (tag: string) => {
  const email = `${tag}-${Date.now()}@example.com`
  t.equal((await svc.api('POST', '/register', { body: { email, password: PASSWORD }, headers: fromNewClient() })).status, 202)
  return email
}

t.test('five failures from five addresses put the account in backoff: even the right password answers 429', async (t) => {
  const victim = await registered('victim')
  const bystander = await registered('bystander')
  const failures = []
  for (let i = 0; i < 5; i++) failures.push((await attempt(i % 2 ? '/token' : '/login', victim, `wrong guess ${i}`)).status)
  t.same(failures, [401, 401, 401, 401, 401], 'each from a new client address')

  const right = await attempt('/login', victim, PASSWORD)
  t.equal(right.status, 429)
  t.same(right.body, { detail: 'too_many_failed_logins' })
  const retryAfter = Number(right.headers.get('retry-after'))
  t.ok(retryAfter >= 25 && retryAfter <= 30, `Retry-After is the 30 s wait (${retryAfter})`)
  t.equal(right.headers.get('x-ratelimit-limit'), '5')
  t.equal(right.headers.get('set-cookie'), null, 'no session')
  t.equal((await attempt('/token', victim, PASSWORD)).status, 429, '/token shares the backoff')
  t.equal((await attempt('/login', victim.toUpperCase(), PASSWORD)).status, 429, 'the address is counted in its normal form')

  t.equal((await attempt('/login', bystander, PASSWORD)).status, 200, 'another account is unaffected')
})

t.test('an unknown address is throttled the same way, so a 429 does not tell which addresses exist', async (t) => {
  const unknown = `nobody-${Date.now()}@example.com`
  const statuses = []
  for (let i = 0; i < 6; i++) statuses.push((await attempt('/login', unknown, `guess ${i}`)).status)
  t.same(statuses, [401, 401, 401, 401, 401, 429])
})

t.test('a successful login starts the count over', async (t) => {
  const email = await registered('forgetful')
  const statuses = []
  for (let i = 0; i < 4; i++) statuses.push((await attempt('/login', email, `typo ${i}`)).status)
  statuses.push((await attempt('/login', email, PASSWORD)).status)
  for (let i = 0; i < 4; i++) statuses.push((await attempt('/token', email, `typo ${i}`)).status)
  statuses.push((await attempt('/token', email, PASSWORD)).status)
  t.same(statuses, [401, 401, 401, 401, 200, 401, 401, 401, 401, 200])
})
