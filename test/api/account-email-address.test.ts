import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { Effect } from 'effect'
import { encodeEvent } from '../../domain/events.js'
import { UserRegistered, VerificationTokenIssued } from '../../domain/user/events.js'
import { STREAMS } from '../../domain/streams.js'
import { verificationToken, verificationTokenHash } from '../../domain/user/identity.js'
import { EventStore } from '../../ports/event-store.js'
import { MailOutbox } from '../../ports/mail.js'
import { outboxMessages } from '../helpers/mail.js'
import { startService, waitFor } from '../helpers/service.js'
import { startSmtpServer } from '../helpers/smtp.js'

// Messages go to a real local SMTP server as well as to DATA_DIR/outbox/, so both copies can be compared with the stored address.
const smtp = await startSmtpServer()
const svc = await startService({ env: { LOGIN_ATTEMPTS_PER_MINUTE: '1000', SMTP_URL: smtp.url } })
t.teardown(async () => { await svc.close(); await smtp.close() })

const PASSWORD = 'correct horse battery'
const register = (email: string) => svc.api('POST', '/register', { body: { email, password: PASSWORD } })
const storedAddress = async (email: string) => (await svc.api('POST', '/login', { body: { email, password: PASSWORD } })).body.user.email as string

t.test('control characters, invisible characters and lone surrogates answer 422 invalid_email and register nothing', async (t) => {
  const refused = [
    'ceo@example.com\u0000.attacker.test',
    'ceo1@example.com\u0000',
    'ceo2\uD800@example.com',
    'ceo3@example.com\uDC00',
    'ce\u200Bo@example.com',
    'ceo@exa\u202Emple.com',
    'ceo\n@example.com',
    'ceo@example.com\r\nBcc: victim@example.net',
    '"ceo x"@example.com',
    '"ceo\u0001"@example.com',
  ]
  for (const email of refused) {
    const answer = await register(email)
    t.equal(answer.status, 422, JSON.stringify(email))
    t.match(answer.body, { detail: 'validation_error', errors: [{ field: 'email', code: 'invalid_email' }] }, JSON.stringify(email))
    const login = await svc.api('POST', '/login', { body: { email, password: PASSWORD } })
    t.equal(login.status, 422, `a login with ${JSON.stringify(email)} is refused the same way`)
  }
  t.same((await register('ceo@example.com\u0000.attacker.test')).body.errors[0].message, 'email must not contain control or invisible characters')
  t.same((await register('ceo2\uD800@example.com')).body.errors[0].message, 'email must be valid Unicode (it has a lone surrogate)')
  await new Promise((r) => setTimeout(r, 300))
  const mailed = outboxMessages(svc.dataDir).map((m) => m.headers.to)
  t.notOk(mailed.some((to) => to.includes('attacker.test') || to.startsWith('ceo')), 'nothing was mailed')
  t.equal(smtp.received.length, 0, 'nothing reached the SMTP server')
})

t.test('a NUL after an existing address does not make a second account for the same mailbox', async (t) => {
  t.equal((await register('ceo4@example.com')).status, 202)
  const duplicate = await register('ceo4@example.com\u0000')
  t.equal(duplicate.status, 422)
  t.match(duplicate.body.errors, [{ field: 'email', code: 'invalid_email' }])
})

t.test('addresses are stored trimmed, lower-cased and in Unicode NFC; uniqueness holds on that form', async (t) => {
  t.equal((await register('  Ada.Lovelace@Example.COM ')).status, 202)
  t.equal(await storedAddress('ada.lovelace@example.com'), 'ada.lovelace@example.com')
  t.same((await register('ADA.LOVELACE@example.com')).body, { detail: 'email_already_used' })

  const decomposed = 'jose\u0301@example.com'
  t.equal((await register(decomposed)).status, 202)
  t.equal(await storedAddress(decomposed), 'jos\u00e9@example.com', 'stored precomposed')
  const precomposed = await register('jos\u00e9@example.com')
  t.equal(precomposed.status, 409, 'the precomposed spelling is the same address')
})

t.test('the verification e-mail goes to exactly the stored address: .eml To header, SMTP To header and envelope', async (t) => {
  for (const email of ['  Grace.Hopper+Navy@Example.org', 'jürgen@bücher.example']) {
    t.equal((await register(email)).status, 202, email)
    const stored = await storedAddress(email)
    await waitFor(() => smtp.received.some((m) => m.recipients.includes(stored)))
    const relayed = smtp.received.filter((m) => m.headers.to === stored)
    t.equal(relayed.length, 1, `one SMTP message whose To header is ${stored}`)
    t.same(relayed[0]!.recipients, [stored], 'the envelope has the stored address alone')
    t.equal(outboxMessages(svc.dataDir).filter((m) => m.headers.to === stored).length, 1, 'the outbox copy too')
  }
})

t.test('a user recorded before addresses were validated, with a NUL in the address, is not mailed', async (t) => {
  // Events as the service wrote them before the fix; the running mailer reacts to the token's event.
  const userId = randomUUID()
  const email = 'legacy@example.com\u0000.attacker.test'
  const token = verificationToken(userId, 'legacy-secret')
  const tokenHash = verificationTokenHash(token)
  await svc.run(Effect.flatMap(MailOutbox, (outbox) => outbox.stage(tokenHash, token)))
  const now = new Date().toISOString()
  const events = [
    new UserRegistered({ user_id: userId, email, password_hash: 'not-a-hash', org_id: randomUUID(), registered_at: now }),
    new VerificationTokenIssued({ user_id: userId, token_hash: tokenHash, expires_at: new Date(Date.now() + 3_600_000).toISOString(), issued_at: now }),
  ].map((event) => ({ event_id: randomUUID(), ...encodeEvent(event), org_id: '', occurred_at: now, metadata: { correlation_id: 'legacy', causation_id: null, actor: 'test' } }))
  await svc.run(Effect.flatMap(EventStore, (store) => store.append(STREAMS.user.stream(userId), events, 'no_stream')))

  await waitFor(() => !existsSync(join(svc.dataDir, 'outbox-staged', `${tokenHash}.token`)))
  t.notOk(outboxMessages(svc.dataDir).some((m) => m.text.includes(token) || m.headers.to.includes('attacker')), 'no message was written')
  t.notOk(smtp.received.some((m) => m.recipients.some((r) => r.includes('attacker'))), 'nothing was relayed')
})
