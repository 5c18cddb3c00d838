import t from 'tap'
import { Effect } from 'effect'
import { handle } from '../../commands/handle.js'
import { emailClaimDecider } from '../../domain/user/email-claim.js'
import { STREAMS } from '../../domain/streams.js'
import { emailHash } from '../../domain/user/identity.js'
import { EventStore } from '../../ports/event-store.js'
import { makeMailerProcessor } from '../../processors/mailer.js'
import { outboxMessages, verificationLink } from '../helpers/mail.js'
import { startService } from '../helpers/service.js'

// At-least-once and half-done work: what the account API does after crashes and redeliveries.
const svc = await startService({ env: { LOGIN_ATTEMPTS_PER_MINUTE: '100' } })
t.teardown(() => svc.close())
const metadata = { correlation_id: 'test', causation_id: null, actor: 'test' }
const userEvents = (userId: string) => svc.run(Effect.flatMap(EventStore, (store) => store.readStream(STREAMS.user.stream(userId))))

t.test('a claim left by a registration that died half-way is taken over after a minute', async (t) => {
  const email = `orphan-${Date.now()}@example.com`
  const orphanId = '00000000-0000-4000-8000-00000000a11e'
  const claimOrphan = (now: string) => svc.run(handle(emailClaimDecider, STREAMS.email.stream(emailHash(email)),
    { _tag: 'ClaimEmail', email_hash: emailHash(email), user_id: orphanId, now }, { org_id: '', metadata }))
  await claimOrphan(new Date(Date.now() - 61_000).toISOString())

  const answer = await svc.api('POST', '/register', { body: { email, password: 'correct horse' } })
  t.equal(answer.status, 202, 'the address is not lost forever')
  const login = await svc.api('POST', '/login', { body: { email, password: 'correct horse' } })
  t.equal(login.body.user.id, orphanId, 'the registration took over the orphaned claim')
  t.equal((await svc.api('POST', '/register', { body: { email, password: 'other password' } })).status, 409, 'and owns the address now')

  const recent = `recent-${Date.now()}@example.com`
  await svc.run(handle(emailClaimDecider, STREAMS.email.stream(emailHash(recent)),
    { _tag: 'ClaimEmail', email_hash: emailHash(recent), user_id: '00000000-0000-4000-8000-00000000beef', now: new Date().toISOString() }, { org_id: '', metadata }))
  t.equal((await svc.api('POST', '/register', { body: { email: recent, password: 'correct horse' } })).status, 409,
    'a fresh claim may belong to a registration still under way')
})

t.test('a redelivered VerificationTokenIssued sends nothing twice', async (t) => {
  const email = `redelivery-${Date.now()}@example.com`
  await svc.api('POST', '/register', { body: { email, password: 'correct horse' } })
  await verificationLink(svc.dataDir, email)
  const userId = (await svc.api('POST', '/login', { body: { email, password: 'correct horse' } })).body.user.id
  const issued = (await userEvents(userId)).find((e) => e.type === 'VerificationTokenIssued')!

  const logged: string[] = []
  const mailer = makeMailerProcessor({ publicBaseUrl: svc.config.publicBaseUrl, log: (m) => logged.push(m) }, svc.run)
  await mailer.handle(issued)
  await mailer.handle(issued)

  t.same((await userEvents(userId)).filter((e) => e.type === 'VerificationEmailSent').length, 1, 'one VerificationEmailSent')
  t.equal(outboxMessages(svc.dataDir).filter((m) => m.headers.to === email).length, 1, 'one message')
  t.same(logged, [], 'nothing went wrong')
})
