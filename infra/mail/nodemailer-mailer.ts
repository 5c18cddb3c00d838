import { mkdirSync } from 'node:fs'
import { rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Effect, type Scope } from 'effect'
import { createTransport } from 'nodemailer'
import { MailUnavailable, type MailerService } from '../../ports/mail.js'
import { withReadableText } from './readable-text.js'

export interface MailerOptions {
  /** Every message is written here as `<id>.eml` (RFC 822), whether or not SMTP is configured. */
  readonly outboxDir: string
  readonly from: string
  /**
   * `smtp://user:pass@host:587` or `smtps://…`: messages are also sent there. The SMTP server is operator
   * configuration, not a customer-chosen address, so this connection does not go through the egress gateway
   * (which exists to keep customer-controlled URLs away from internal addresses).
   */
  readonly smtpUrl: string | null
  /**
   * Without SMTP the saved file is the only delivery: one line per message names it, for the operator to open and pass
   * on. Never its links: a verification or reset link carries a token, and no token goes into a log.
   */
  readonly notice?: (message: string, detail?: unknown) => void
}


const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/

/**
 * Builds each message once with nodemailer's stream transport (its text readable as written: withReadableText), keeps it
 * as a file, then relays the same bytes by SMTP.
 * The SMTP connection pool is closed when the scope closes.
 */
export const nodemailerMailer = (options: MailerOptions): Effect.Effect<MailerService, never, Scope.Scope> => Effect.gen(function* () {
  mkdirSync(options.outboxDir, { recursive: true, mode: 0o700 })
  const builder = createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
  const smtp = options.smtpUrl ? createTransport(options.smtpUrl) : null
  if (smtp) yield* Effect.addFinalizer(() => Effect.sync(() => smtp.close()))
  const domain = options.from.match(/@([^>\s]+)/)?.[1] ?? 'localhost'

  return {
    send: (mail) => Effect.tryPromise({
      try: async () => {
        if (!SAFE_ID.test(mail.id)) throw new Error(`unsafe message id ${mail.id}`)
        const messageId = `<${mail.id}@${domain}>`
        const built = await builder.sendMail({ from: options.from, to: mail.to, subject: mail.subject, text: mail.text, messageId, ...(mail.headers ? { headers: { ...mail.headers } } : {}) })
        const raw = withReadableText(built.message as Buffer, mail.text)
        const file = join(options.outboxDir, `${mail.id}.eml`)
        await writeFile(`${file}.tmp`, raw, { mode: 0o600 })
        await rename(`${file}.tmp`, file)
        if (smtp) await smtp.sendMail({ envelope: { from: options.from, to: mail.to }, raw })
        else options.notice?.('mail saved to the outbox (no SMTP_URL)', { to: mail.to, subject: mail.subject, file })
        return { message_id: messageId }
      },
      catch: (cause) => new MailUnavailable({ cause }),
    }),
  } satisfies MailerService
})
