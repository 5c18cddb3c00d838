import { readFileSync, existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Effect } from 'effect'
import { replayProjections } from '../../infra/replay.js'
import { DocumentStore } from '../../ports/document-store.js'
import { USER_EMAILS, USERS, usersProjection } from '../../projections/users.js'
import { outboxMessages, verificationLink } from '../helpers/mail.js'
import { startService, waitFor } from '../helpers/service.js'

// The login limit has its own test file; here it must not get in the way of the many logins.
const svc = await startService({ env: { LOGIN_ATTEMPTS_PER_MINUTE: '1000' } })
t.teardown(() => svc.close())

const PASSWORD = 'correct horse battery'
let counter = 0
const newEmail = () => `user${++counter}-${Date.now()}@example.com`
const register = (email: string, password = PASSWORD) => svc.api('POST', '/register', { body: { email, password } })
const login = (email: string, password = PASSWORD) => svc.api('POST', '/login', { body: { email, password } })
const issueToken = (email: string, password = PASSWORD) => svc.api('POST', '/token', { body: { email, password } })
const sessionCookie = (answer: { headers: Headers }) => answer.headers.get('set-cookie')!.split(';')[0]!
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const verify = async (email: string) => {
  const link = await verificationLink(svc.dataDir, email)
  return svc.api('GET', `${link.pathname}${link.search}`)
}

t.test('POST /register answers 202 with an empty body; the address is taken case-insensitively', async (t) => {
  const email = newEmail()
  const registered = await register(email)
  t.equal(registered.status, 202)
  t.equal(registered.text, '')
  const again = await register(email.toUpperCase())
  t.equal(again.status, 409)
  t.same(again.body, { detail: 'email_already_used' })
})

t.test('two concurrent registrations of one address give exactly one user', async (t) => {
  const email = newEmail()
  const answers = await Promise.all([register(email, 'first password'), register(email, 'second password'), register(email, 'third password')])
  t.same(answers.map((a) => a.status).sort(), [202, 409, 409])
  const winner = ['first password', 'second password', 'third password'][answers.findIndex((a) => a.status === 202)]!
  t.equal((await login(email, winner)).status, 200, 'the accepted registration owns the address')
  const usersWithAddress = () => svc.run(Effect.flatMap(DocumentStore, (docs) => docs.find(USERS.name, { email })))
  await waitFor(async () => (await usersWithAddress()).length > 0)
  await new Promise((r) => setTimeout(r, 100))
  t.equal((await usersWithAddress()).length, 1, 'one user document for the address')
})

t.test('POST /register validates in the domain: 422 with a code per field, 400 for a body that is not JSON', async (t) => {
  const invalidEmail = await register('not-an-address')
  t.equal(invalidEmail.status, 422)
  t.same(invalidEmail.body, { detail: 'validation_error', errors: [{ field: 'email', code: 'invalid_email', message: 'email must be an e-mail address' }] })
  const shortPassword = await register(newEmail(), 'seven77')
  t.equal(shortPassword.status, 422)
  t.same(shortPassword.body.errors.map((e: any) => [e.field, e.code]), [['password', 'password_too_short']])
  const missing = await svc.api('POST', '/register', { body: {} })
  t.equal(missing.status, 422)
  t.same(missing.body.errors.map((e: any) => e.code), ['missing_email', 'missing_password'])
  const malformed = await svc.api('POST', '/register', { rawBody: '{"email": "a@b.co",', headers: { 'content-type': 'application/json' } })
  t.equal(malformed.status, 400)
  t.same(malformed.body, { error: 'malformed_body' })
})

t.test('the verification e-mail lands in DATA_DIR/outbox/ and its link verifies once', async (t) => {
  const email = newEmail()
  await register(email)
  const link = await verificationLink(svc.dataDir, email)
  t.equal(link.origin, svc.config.publicBaseUrl, 'the link points at PUBLIC_BASE_URL')
  const message = outboxMessages(svc.dataDir).find((m) => m.headers.to === email)!
  t.match(message.file, /\.eml$/)
  t.match(message.headers.subject, /confirm/i)

  t.equal((await login(email)).body.user.isVerified, false, 'not verified before the link is opened')
  const verified = await svc.api('GET', `${link.pathname}${link.search}`)
  t.equal(verified.status, 200)
  t.same(verified.body, { status: 'verified' })
  t.equal((await login(email)).body.user.isVerified, true)

  const reused = await svc.api('GET', `${link.pathname}${link.search}`)
  t.equal(reused.status, 422, 'a token works once')
  t.same(reused.body, { detail: 'invalid_or_expired_token' })
})

t.test('GET /verify: 400 without a token, 422 for an unknown one', async (t) => {
  const missing = await svc.api('GET', '/verify')
  t.equal(missing.status, 400)
  t.same(missing.body, { error: 'missing_token' })
  t.same((await svc.api('GET', '/verify?token=')).body, { error: 'missing_token' })
  for (const token of ['garbage', '00000000-0000-4000-8000-000000000000.abc', `${'x'.repeat(300)}`]) {
    const unknown = await svc.api('GET', `/verify?token=${encodeURIComponent(token)}`)
    t.equal(unknown.status, 422, token.slice(0, 20))
    t.same(unknown.body, { detail: 'invalid_or_expired_token' })
  }
})

t.test('POST /login sets an HttpOnly SameSite=Lax session cookie that /me accepts', async (t) => {
  const email = newEmail()
  await register(email)
  const answer = await login(email)
  t.equal(answer.status, 200)
  t.match(answer.body, { status: 'ok', user: { email, isVerified: false } })
  t.match(answer.body.user.id, /^[0-9a-f-]{36}$/)
  t.notOk('createdAt' in answer.body.user, 'createdAt only on /me')
  const setCookie = answer.headers.get('set-cookie')!
  t.match(setCookie, /^sw_session=/)
  t.match(setCookie, /HttpOnly/)
  t.match(setCookie, /SameSite=Lax/)
  t.match(setCookie, /Path=\//)
  t.notMatch(setCookie, /Secure/, 'not Secure on an http base URL')

  const me = await svc.api('GET', '/me', { headers: { cookie: sessionCookie(answer) } })
  t.equal(me.status, 200)
  t.same(me.body, { authenticated: true, user: { id: answer.body.user.id, email, isVerified: false, createdAt: me.body.user.createdAt } })
  t.ok(!Number.isNaN(Date.parse(me.body.user.createdAt)), 'createdAt is an ISO timestamp')

  const tampered = sessionCookie(answer).replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))
  t.same((await svc.api('GET', '/me', { headers: { cookie: tampered } })).body, { authenticated: false }, 'a tampered cookie is refused')
})

t.test('wrong credentials answer 401 invalid_credentials; missing fields 422', async (t) => {
  const email = newEmail()
  await register(email)
  const wrong = await login(email, 'not the password')
  t.equal(wrong.status, 401)
  t.same(wrong.body, { detail: 'invalid_credentials' })
  t.equal(wrong.headers.get('set-cookie'), null, 'no cookie on failure')
  t.same((await login(newEmail())).body, { detail: 'invalid_credentials' }, 'an unknown address answers the same')
  const missing = await svc.api('POST', '/login', { body: { email } })
  t.equal(missing.status, 422)
  t.same(missing.body.errors.map((e: any) => e.code), ['missing_password'])
})

t.test('POST /token issues a bearer JWT that /me accepts', async (t) => {
  const email = newEmail()
  await register(email)
  const answer = await issueToken(email)
  t.equal(answer.status, 200)
  t.equal(answer.body.token_type, 'Bearer')
  t.equal(answer.body.expires_in, 3600)
  t.ok(Number.isInteger(answer.body.expires_in), 'expires_in is an integer')
  t.match(answer.body.user, { email, isVerified: false })
  t.equal(answer.body.access_token.split('.').length, 3, 'a JWT')
  const header = JSON.parse(Buffer.from(answer.body.access_token.split('.')[0], 'base64url').toString())
  t.equal(header.alg, 'HS256')

  const me = await svc.api('GET', '/me', { headers: bearer(answer.body.access_token) })
  t.equal(me.status, 200)
  t.match(me.body, { authenticated: true, user: { id: answer.body.user.id, email } })
})

t.test('GET /me without valid credentials answers 401 {authenticated: false}', async (t) => {
  const email = newEmail()
  await register(email)
  const token: string = (await issueToken(email)).body.access_token
  const cookie = sessionCookie(await login(email))
  const [head, payload] = token.split('.')
  const forged = `${head}.${payload}.${'A'.repeat(43)}`
  const cases: [string, Record<string, string>][] = [
    ['no credentials', {}],
    ['garbage bearer', bearer('garbage')],
    ['forged signature', bearer(forged)],
    ['not a bearer scheme', { authorization: `Basic ${token}` }],
    ['a session token used as a bearer token', bearer(decodeURIComponent(cookie.slice('sw_session='.length)).replace(/\.[^.]+$/, ''))],
    ['an invalid bearer token next to a valid cookie', { ...bearer('garbage'), cookie }],
  ]
  for (const [name, headers] of cases) {
    const me = await svc.api('GET', '/me', { headers })
    t.equal(me.status, 401, name)
    t.same(me.body, { authenticated: false }, name)
  }
})

t.test('POST /token answers 422 with errors for invalid fields and 401 for wrong credentials', async (t) => {
  const invalid = await svc.api('POST', '/token', { body: { email: 'nope', password: '' } })
  t.equal(invalid.status, 422)
  t.same(invalid.body.detail, 'validation_error')
  t.same(invalid.body.errors.map((e: any) => [e.field, e.code]), [['email', 'invalid_email'], ['password', 'missing_password']])
  const email = newEmail()
  await register(email)
  const wrong = await issueToken(email, 'wrong password')
  t.equal(wrong.status, 401)
  t.same(wrong.body, { detail: 'invalid_credentials' })
})

t.test('POST /logout answers 204 and clears the cookie', async (t) => {
  const email = newEmail()
  await register(email)
  const cookie = sessionCookie(await login(email))
  const out = await svc.api('POST', '/logout', { headers: { cookie } })
  t.equal(out.status, 204)
  const cleared = out.headers.get('set-cookie')!
  t.match(cleared, /^sw_session=;/)
  t.match(cleared, /Expires=Thu, 01 Jan 1970|Max-Age=0/)
  t.equal((await svc.api('POST', '/logout')).status, 204, 'without a session too')
})

t.test('POST /api-keys gives a verified user a v1 key for their organization', async (t) => {
  const email = newEmail()
  await register(email)
  const token: string = (await issueToken(email)).body.access_token
  t.same((await svc.api('POST', '/api-keys', { body: { name: 'ci' } })).body, { authenticated: false }, '401 without a session')
  const unverified = await svc.api('POST', '/api-keys', { body: { name: 'ci' }, headers: bearer(token) })
  t.equal(unverified.status, 403)
  t.same(unverified.body, { detail: 'email_not_verified' })

  t.equal((await verify(email)).status, 200)
  const missingName = await svc.api('POST', '/api-keys', { body: {}, headers: bearer(token) })
  t.equal(missingName.status, 422)
  t.same(missingName.body.errors.map((e: any) => e.code), ['missing_name'])

  const created = await svc.api('POST', '/api-keys', { body: { name: 'ci' }, headers: bearer(token) })
  t.equal(created.status, 201)
  t.match(created.body, { name: 'ci', api_key: /^sk_/, key_id: String, org_id: String, enforcement_mode: 'block', rate_limit_rpm: 600, expires_at: null })
  t.ok(created.body.scopes.includes('jobs.create') && created.body.scopes.includes('jobs.read'), 'all scopes')
  const jobs = await svc.api('GET', '/v1/jobs', { key: created.body.api_key })
  t.equal(jobs.status, 200, 'the key works on the v1 API')
  t.same(jobs.body.items, [], "a new user's organization has no jobs")

  const viaCookie = await svc.api('POST', '/api-keys', { body: { name: 'cookie' }, headers: { cookie: sessionCookie(await login(email)) } })
  t.equal(viaCookie.status, 201, 'the session cookie works too')
  t.equal(viaCookie.body.org_id, created.body.org_id, 'same organization')

  for (const bad of [0, 59, 365 * 86_400 + 1, 1.5, '3600', null]) {
    const refused = await svc.api('POST', '/api-keys', { body: { name: 'short', expires_in_seconds: bad }, headers: bearer(token) })
    t.equal(refused.status, 422, `expires_in_seconds ${JSON.stringify(bad)} is refused`)
    t.same(refused.body.errors.map((e: any) => e.code), ['invalid_expires_in_seconds'])
  }
  const before = Date.now()
  const shortLived = await svc.api('POST', '/api-keys', { body: { name: 'dashboard', expires_in_seconds: 3600 }, headers: bearer(token) })
  t.equal(shortLived.status, 201)
  const expiresAt = Date.parse(shortLived.body.expires_at)
  t.ok(expiresAt >= before + 3_600_000 && expiresAt <= Date.now() + 3_600_000, 'expires one hour after its creation')
  t.equal((await svc.api('GET', '/v1/jobs', { key: shortLived.body.api_key })).status, 200, 'works until then')

  for (const bad of [[], ['jobs.fly'], 'jobs.read']) {
    const refused = await svc.api('POST', '/api-keys', { body: { name: 'narrow', scopes: bad }, headers: bearer(token) })
    t.same([refused.status, refused.body.errors?.map((e: any) => e.code)], [422, ['invalid_scopes']], `scopes ${JSON.stringify(bad)} are refused`)
  }
  const narrow = await svc.api('POST', '/api-keys', { body: { name: 'narrow', scopes: ['jobs.read'] }, headers: bearer(token) })
  t.same([narrow.status, narrow.body.scopes, narrow.body.expires_at], [201, ['jobs.read'], null])
  t.equal((await svc.api('GET', '/v1/jobs', { key: narrow.body.api_key })).status, 200)
  t.equal((await svc.api('GET', '/v1/keys', { key: narrow.body.api_key })).status, 403, 'only the scopes asked for')
})

t.test('the stored event log holds no clear password and no clear verification token', async (t) => {
  const email = newEmail()
  const password = `unique-password-${Date.now()}`
  await register(email, password)
  const link = await verificationLink(svc.dataDir, email)
  const token = link.searchParams.get('token')!
  t.equal((await svc.api('GET', `${link.pathname}${link.search}`)).status, 200)
  t.equal((await login(email, password)).status, 200)
  const stored = (file: string) => ['', '-wal'].map((suffix) => join(svc.dataDir, `${file}${suffix}`)).filter(existsSync).map((f) => readFileSync(f).toString('latin1')).join('')
  const events = stored('events.db')
  t.ok(events.includes(email), 'the events were read (the address is in them)')
  t.ok(events.includes('$argon2id$'), 'the password is stored as an argon2id hash')
  t.notOk(events.includes(password), 'no clear password in the event store')
  t.notOk(events.includes(token), 'no clear verification token in the event store')
  t.notOk(events.includes(token.split('.')[1]!), 'not even its random part')
  const readModels = stored('readmodels.db')
  t.notOk(readModels.includes(password) || readModels.includes(token.split('.')[1]!), 'nor in the read models')
  await waitFor(() => readdirSync(join(svc.dataDir, 'outbox-staged')).length === 0)
  t.pass('the staged token is removed once its e-mail is sent')
})

t.test('replaying the log rebuilds the users read model identically', async (t) => {
  await waitFor(() => readdirSync(join(svc.dataDir, 'outbox-staged')).length === 0)
  const snapshot = async () => {
    return svc.run(Effect.flatMap(DocumentStore, (docs) => Effect.all([docs.find(USERS.name, {}, { sort: [['_id', 'asc']] }), docs.find(USER_EMAILS.name, {}, { sort: [['_id', 'asc']] })])))
  }
  const before = await snapshot()
  t.ok(before[0].length >= 5, 'there are users to rebuild')
  await svc.run(replayProjections([usersProjection]))
  t.same(await snapshot(), before)
})
