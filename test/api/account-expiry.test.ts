import t from 'tap'
import { outboxMessages, verificationLink } from '../helpers/mail.js'
import { startService } from '../helpers/service.js'

// Short lifetimes, and an https public address (the session cookie must then be Secure).
const svc = await startService({
  env: { VERIFICATION_TOKEN_TTL_SECONDS: '3', ACCESS_TOKEN_TTL_SECONDS: '3', PUBLIC_BASE_URL: 'https://accounts.example.test', LOGIN_ATTEMPTS_PER_MINUTE: '100' },
})
t.teardown(() => svc.close())
const sleepUntil = (epochMs: number) => new Promise((r) => setTimeout(r, Math.max(0, epochMs - Date.now())))

t.test('an expired verification token answers 422 invalid_or_expired_token', async (t) => {
  const email = `expiry-${Date.now()}@example.com`
  t.equal((await svc.api('POST', '/register', { body: { email, password: 'correct horse' } })).status, 202)
  const link = await verificationLink(svc.dataDir, email)
  t.equal(link.origin, 'https://accounts.example.test', 'links use PUBLIC_BASE_URL')
  const expiresAt = outboxMessages(svc.dataDir).find((m) => m.headers.to === email)!.text.match(/expires at (\S+?)\.?\n/)![1]!
  await sleepUntil(Date.parse(expiresAt) + 50)
  const expired = await svc.api('GET', `${link.pathname}${link.search}`)
  t.equal(expired.status, 422)
  t.same(expired.body, { detail: 'invalid_or_expired_token' })
  const login = await svc.api('POST', '/login', { body: { email, password: 'correct horse' } })
  t.equal(login.body.user.isVerified, false, 'the address stays unverified')
})

t.test('the session cookie is Secure on an https service; access tokens expire after ACCESS_TOKEN_TTL_SECONDS', async (t) => {
  const email = `ttl-${Date.now()}@example.com`
  await svc.api('POST', '/register', { body: { email, password: 'correct horse' } })
  const login = await svc.api('POST', '/login', { body: { email, password: 'correct horse' } })
  t.match(login.headers.get('set-cookie'), /; Secure/)
  const issued = await svc.api('POST', '/token', { body: { email, password: 'correct horse' } })
  t.equal(issued.body.expires_in, 3)
  const claims = JSON.parse(Buffer.from(issued.body.access_token.split('.')[1], 'base64url').toString())
  t.equal(claims.exp - claims.iat, 3, 'the JWT carries the same lifetime')
  const authorization = `Bearer ${issued.body.access_token}`
  t.equal((await svc.api('GET', '/me', { headers: { authorization } })).status, 200, 'valid at first')
  await sleepUntil(claims.exp * 1000 + 1100)
  const me = await svc.api('GET', '/me', { headers: { authorization } })
  t.equal(me.status, 401, 'expired')
  t.same(me.body, { authenticated: false })
})
