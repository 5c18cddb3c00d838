import { Context, Data, type Effect } from 'effect'

export class MailUnavailable extends Data.TaggedError('MailUnavailable')<{ readonly cause: unknown }> {}

/**
 * Secrets waiting for their e-mail. The event log only ever holds a verification token's hash, so the command
 * handler that creates a token stages the token here (keyed by that hash) before it records the event; the mailer
 * reacting to the event takes it from here, sends it and removes it.
 */
export interface MailOutboxService {
  readonly stage: (tokenHash: string, token: string) => Effect.Effect<void, MailUnavailable>
  readonly read: (tokenHash: string) => Effect.Effect<string | null, MailUnavailable>
  readonly remove: (tokenHash: string) => Effect.Effect<void, MailUnavailable>
}

export class MailOutbox extends Context.Tag('MailOutbox')<MailOutbox, MailOutboxService>() {}

export interface OutgoingMail {
  readonly to: string
  readonly subject: string
  readonly text: string
  /** Stable per cause (e.g. the triggering event), so a redelivered reaction rewrites the same message. */
  readonly id: string
  /** Extra header lines, e.g. List-Unsubscribe. */
  readonly headers?: Readonly<Record<string, string>>
}

export interface MailerService {
  /** Delivers one message: on the embedded profile an `.eml` file in the outbox folder, and SMTP when configured. */
  readonly send: (mail: OutgoingMail) => Effect.Effect<{ readonly message_id: string }, MailUnavailable>
}

export class Mailer extends Context.Tag('Mailer')<Mailer, MailerService>() {}
