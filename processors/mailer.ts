import { Effect } from 'effect'
import { currentTime } from '../commands/clock.js'
import { loadUser, recordVerificationEmailSent } from '../commands/users.js'
import { isEmail } from '../domain/user/email-address.js'
import type { VerificationTokenIssued } from '../domain/user/events.js'
import type { Clock } from '../ports/clock.js'
import { Mailer, MailOutbox } from '../ports/mail.js'
import type { EventEnvelope, EventStore } from '../ports/event-store.js'
import { defineProcessor } from './processor.js'
import type { Run } from './runner.js'
import { verificationMail } from './verification-mail.js'

export interface MailerProcessorOptions {
  readonly publicBaseUrl: string
  readonly log: (message: string, detail?: unknown) => void
}

/**
 * The mailer processor: reacts to VerificationTokenIssued by sending the e-mail that carries the token, which it
 * takes from the mail outbox (the event only has the token's hash), then records VerificationEmailSent.
 * At-least-once: a token already mailed, already used or expired is not mailed again; a crash between sending and
 * recording sends the same message (same file name and Message-ID) once more.
 */
export const makeMailerProcessor = (options: MailerProcessorOptions, run: Run<EventStore | MailOutbox | Mailer | Clock>) => {
  const mail = async (issued: VerificationTokenIssued, envelope: EventEnvelope): Promise<void> => {
    const { user_id: userId, token_hash: tokenHash, expires_at: expiresAt } = issued
    await run(Effect.gen(function* () {
      const outbox = yield* MailOutbox
      const user = yield* loadUser(userId)
      if (!user.exists) return
      const settled = user.verified || user.mailed.has(tokenHash) || Date.parse(expiresAt) <= (yield* currentTime).getTime()
      if (settled) return yield* outbox.remove(tokenHash)
      const token = yield* outbox.read(tokenHash)
      if (token === null) {
        options.log('verification token missing from the mail outbox: its e-mail cannot be sent', { user_id: userId })
        return
      }
      // The stored address is the recipient, byte for byte; one recorded before addresses were validated is not mailed.
      if (!isEmail(user.email)) {
        options.log('the stored address is not a valid e-mail address: its verification e-mail is not sent', { user_id: userId })
        return yield* outbox.remove(tokenHash)
      }
      const link = `${options.publicBaseUrl}/verify?token=${encodeURIComponent(token)}`
      const sent = yield* (yield* Mailer).send({ ...verificationMail({ to: user.email, link, expiresAt }), id: `verify-${envelope.event_id}` })
      yield* recordVerificationEmailSent({ user_id: userId, org_id: user.org_id, token_hash: tokenHash, message_id: sent.message_id }, {
        metadata: { correlation_id: envelope.metadata.correlation_id, causation_id: envelope.event_id, actor: 'mailer' },
        idSeed: envelope.event_id,
      })
      yield* outbox.remove(tokenHash)
    }))
  }
  return defineProcessor({
    name: 'processor.mailer',
    categories: ['user'],
    types: ['VerificationTokenIssued'],
    log: options.log,
    handle: async (event, envelope) => {
      if (event._tag === 'VerificationTokenIssued') await mail(event, envelope)
    },
  })
}
