import { createHash, randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import type { Test } from 'tap'
import type { MailOutboxService } from '../../ports/mail.js'

/** The MailOutbox port's contract: every adapter (folder of staged tokens, shared document store) must pass it unchanged. */
export interface MailOutboxFixture {
  readonly outbox: MailOutboxService
  readonly cleanup: () => Promise<void>
}

/** Tokens are keyed by the SHA-256 hex digest of the token, as the command handler stages them. */
const newToken = () => {
  const token = `token-${randomUUID()}`
  return { token, hash: createHash('sha256').update(token).digest('hex') }
}

export const mailOutboxContract = (t: Test, name: string, make: () => Promise<MailOutboxFixture>) =>
  t.test(`MailOutbox contract: ${name}`, async (t) => {
    const { outbox, cleanup } = await make()
    t.teardown(cleanup)
    const run = <A>(e: Effect.Effect<A, unknown>) => Effect.runPromise(e)

    t.test('a staged token reads back by its hash until it is removed', async (t) => {
      const { token, hash } = newToken()
      t.equal(await run(outbox.read(hash)), null, 'nothing staged yet')
      await run(outbox.stage(hash, token))
      t.equal(await run(outbox.read(hash)), token)
      t.equal(await run(outbox.read(hash)), token, 'reading does not consume it')
      await run(outbox.remove(hash))
      t.equal(await run(outbox.read(hash)), null, 'gone after remove')
    })

    t.test('tokens are independent of each other', async (t) => {
      const one = newToken()
      const two = newToken()
      await run(outbox.stage(one.hash, one.token))
      await run(outbox.stage(two.hash, two.token))
      await run(outbox.remove(one.hash))
      t.equal(await run(outbox.read(one.hash)), null)
      t.equal(await run(outbox.read(two.hash)), two.token, 'removing one leaves the other')
    })

    t.test('staging again under one hash replaces the token (a retried command)', async (t) => {
      const { hash } = newToken()
      await run(outbox.stage(hash, 'first'))
      await run(outbox.stage(hash, 'second'))
      t.equal(await run(outbox.read(hash)), 'second')
    })

    t.test('removing a token that is not staged is fine (a redelivered send)', async (t) => {
      const { hash } = newToken()
      await run(outbox.remove(hash))
      await run(outbox.remove(hash))
      t.equal(await run(outbox.read(hash)), null)
    })

    t.test('tokens of any characters round-trip exactly', async (t) => {
      const { hash } = newToken()
      const token = `v1.${randomUUID()}.Zé_-~+/=\u00a0ø`
      await run(outbox.stage(hash, token))
      t.equal(await run(outbox.read(hash)), token)
    })
  })
