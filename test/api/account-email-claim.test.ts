import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { outboxMessages, verificationLink } from '../helpers/mail.js'
import { startService } from '../helpers/service.js'

const svc = await startService({ env: { LOGIN_ATTEMPTS_PER_MINUTE: '1000' } })
t.teardown(() => svc.close())

const PASSWORD = 'correct horse battery'
const register = (email: string) => svc.api('POST', '/register', { body: { email, password: PASSWORD } })
const login = (email: string) => svc.api('POST', '/login', { body: { email, password: PASSWORD } })

/** An address of `length` characters: a 64-character local part (the longest allowed), labels of 63 before `.com`. */
const addressOfLength = (length: number, tag: string) => {
  const local = `${tag}-`.padEnd(64, 'a')
  const labels = 'd'.repeat(length - local.length - '@.com'.length).replace(/(.{63})./g, '$1.')
  return `${local}@${labels}.com`
}

t.test('every valid length registers: 201 to 254 characters, with a 64-character local part', async (t) => {
  for (const length of [201, 230, 254]) {
    const email = addressOfLength(length, `len${length}`)
    t.equal(email.length, length)
    const registered = await register(email)
    t.equal(registered.status, 202, `${length} characters`)
    const loggedIn = await login(email)
    t.equal(loggedIn.body.user?.email, email, 'the whole address is stored')
    await verificationLink(svc.dataDir, email)
    t.equal(outboxMessages(svc.dataDir).filter((m) => m.headers.to === email).length, 1, 'the verification e-mail is addressed to it')
  }
  const tooLong = await register(`x${addressOfLength(254, 'len255')}`)
  t.equal(tooLong.status, 422, '255 characters')
  t.match(tooLong.body.errors, [{ field: 'email', code: 'invalid_email' }])
  const longLocal = await register(`${'l'.repeat(65)}@example.com`)
  t.equal(longLocal.status, 422, 'a local part of 65 characters')
  t.match(longLocal.body.errors, [{ field: 'email', code: 'invalid_email' }])
})

t.test('a registration that fails after claiming the address leaves it registrable', async (t) => {
  const email = `release-${Date.now()}@example.com`
  // The mail outbox cannot stage the verification token: its folder is replaced by a file.
  const staged = join(svc.dataDir, 'outbox-staged')
  rmSync(staged, { recursive: true })
  writeFileSync(staged, 'not a folder')
  const failed = await register(email)
  t.equal(failed.status, 503, 'the outbox failure answers 503')
  t.same(failed.body, { detail: 'service_unavailable' })
  rmSync(staged)
  mkdirSync(staged, { mode: 0o700 })

  t.equal((await login(email)).status, 401, 'the failed registration left no user')
  const again = await register(email)
  t.equal(again.status, 202, 'the address is registrable again at once')
  t.equal((await login(email)).status, 200)
  await verificationLink(svc.dataDir, email)
  t.same((await register(email)).body, { detail: 'email_already_used' }, 'and is then taken')
})
