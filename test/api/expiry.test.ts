import t from 'tap'
import { makeManualClock } from '../../infra/clock/manual.js'
import { outboxMessages, verificationLink } from '../helpers/mail.js'
import { startService } from '../helpers/service.js'

// Every lifetime is read on the process's Clock: a manual one here, moved past each expiry instead of sleeping.
// Short lifetimes, and an https public address (the session cookie must then be Secure).
const clock = makeManualClock(new Date('2026-05-01T10:00:00Z'))
const svc = await startService({
  clock,
  env: { VERIFICATION_TOKEN_TTL_SECONDS: '3', ACCESS_TOKEN_TTL_SECONDS: '3', PUBLIC_BASE_URL: 'https://accounts.example.test', LOGIN_ATTEMPTS_PER_MINUTE: '100' },
})
t.teardown(() => svc.close())

const register = async (email: string) => {
  const registered = await svc.api('POST', '/register', { body: { email, password: 'correct horse' } })
  if (registered.status !== 202) throw new Error(`registration failed: ${registered.text}`)
  const link = await verificationLink(svc.dataDir, email)
  const expiresAt = outboxMessages(svc.dataDir).find((m) => m.headers.to === email)!.text.match(/expires at (\S+?)\.?\n/)![1]!
  return { link, expiresAt: Date.parse(expiresAt) }
}

t.test('a verification token works until its expiry on the clock, then answers 422 invalid_or_expired_token', async (t) => {
  const registeredAt = clock.now().getTime()
  const early = await register('expiry-early@example.com')
  const late = await register('expiry-late@example.com')
  t.equal(early.link.origin, 'https://accounts.example.test', 'links use PUBLIC_BASE_URL')
  t.equal(early.expiresAt, registeredAt + 3000, 'the token expires VERIFICATION_TOKEN_TTL_SECONDS after registration, on the clock')

  clock.set(new Date(early.expiresAt - 1))
  const verified = await svc.api('GET', `${early.link.pathname}${early.link.search}`)
  t.equal(verified.status, 200, 'valid one millisecond before its expiry')

  clock.set(new Date(late.expiresAt))
  const expired = await svc.api('GET', `${late.link.pathname}${late.link.search}`)
  t.equal(expired.status, 422)
  t.same(expired.body, { detail: 'invalid_or_expired_token' })
  const login = await svc.api('POST', '/login', { body: { email: 'expiry-late@example.com', password: 'correct horse' } })
  t.equal(login.body.user.isVerified, false, 'the address stays unverified')
})

t.test('the session cookie is Secure on an https service; access tokens expire after ACCESS_TOKEN_TTL_SECONDS on the clock', async (t) => {
  const email = 'ttl@example.com'
  await svc.api('POST', '/register', { body: { email, password: 'correct horse' } })
  const login = await svc.api('POST', '/login', { body: { email, password: 'correct horse' } })
  t.match(login.headers.get('set-cookie'), /; Secure/)
  const issued = await svc.api('POST', '/token', { body: { email, password: 'correct horse' } })
  t.equal(issued.body.expires_in, 3)
  const claims = JSON.parse(Buffer.from(issued.body.access_token.split('.')[1], 'base64url').toString())
  t.equal(claims.iat, Math.floor(clock.now().getTime() / 1000), 'issued at the clock\'s time')
  t.equal(claims.exp - claims.iat, 3, 'the JWT carries the same lifetime')
  const authorization = `Bearer ${issued.body.access_token}`
  // The JWT library accepts a token up to and including its exp second.
  clock.set(new Date(claims.exp * 1000))
  t.equal((await svc.api('GET', '/me', { headers: { authorization } })).status, 200, 'valid until its expiry')
  clock.set(new Date(claims.exp * 1000 + 1))
  const me = await svc.api('GET', '/me', { headers: { authorization } })
  t.equal(me.status, 401, 'expired')
  t.same(me.body, { authenticated: false })
})

t.test('an API key answers 401 from its expires_at on the clock', async (t) => {
  const admin = await svc.createOrg('pro')
  const expiresAt = clock.now().getTime() + 60_000
  const created = await svc.api('POST', '/v1/keys', { key: admin.key, body: { name: 'k', scopes: ['jobs.read'], expires_at: new Date(expiresAt).toISOString() } })
  t.equal(created.status, 201, created.text)
  clock.set(new Date(expiresAt - 1))
  t.equal((await svc.api('GET', '/v1/jobs', { key: created.body.api_key })).status, 200, 'valid until its expiry')
  clock.set(new Date(expiresAt))
  const expired = await svc.api('GET', '/v1/jobs', { key: created.body.api_key })
  t.equal(expired.status, 401)
  t.equal(expired.body.error.code, 'invalid_api_key')
})

t.test('POST /v1/keys judges expires_at against the clock: after its now is accepted, before it is 422 invalid_expires_at and creates nothing', async (t) => {
  const admin = await svc.createOrg('pro')
  // The manual clock stands months before the system clock: a time after it is already past by the system clock.
  t.ok(clock.now().getTime() + 60_000 < Date.now(), 'the clocks differ')
  const accepted = await svc.api('POST', '/v1/keys', { key: admin.key, body: { name: 'k', scopes: ['jobs.read'], expires_at: new Date(clock.now().getTime() + 60_000).toISOString() } })
  t.equal(accepted.status, 201, accepted.text)
  const refused = await svc.api('POST', '/v1/keys', { key: admin.key, body: { name: 'k', scopes: ['jobs.read'], expires_at: new Date(clock.now().getTime() - 1000).toISOString() } })
  t.equal(refused.status, 422)
  t.same(refused.body.error.details.map((d: { code: string }) => d.code), ['invalid_expires_at'])
  t.equal((await svc.api('GET', '/v1/keys', { key: admin.key })).body.items.length, 2, 'the admin key and the accepted one only')
})
