import { join } from 'node:path'
import { Context, Effect, Layer } from 'effect'
import { nodemailerMailer } from './nodemailer-mailer.js'
import { Mailer, MailOutbox } from '../../ports/mail.js'
import { DocumentStore } from '../../ports/document-store.js'
import { makeStagedTokensDocuments } from './staged-tokens-documents.js'
import { makeStagedTokensFolder } from './staged-tokens-folder.js'

export interface MailSettings {
  readonly dataDir: string
  /** Tokens wait for their e-mail in the document store, shared by api and mailer processes (scale-out). */
  readonly sharedOutbox: boolean
  readonly smtpUrl: string | null
  readonly mailFrom: string
  /** Info lines: without SMTP, one per message saved (see nodemailerMailer). */
  readonly notice?: (message: string, detail?: unknown) => void
}

/**
 * Both mail ports: registration (api) stages verification tokens that the mailer role sends. Embedded profile:
 * `.eml` files in DATA_DIR/outbox/ (and SMTP when SMTP_URL is set); tokens waiting for their e-mail in
 * DATA_DIR/outbox-staged/, outside the folder of messages. Scale-out: tokens in the shared document store.
 */
export const MailLive = (settings: MailSettings) => Layer.scopedContext(Effect.gen(function* () {
  const outbox = settings.sharedOutbox
    ? makeStagedTokensDocuments(yield* DocumentStore)
    : makeStagedTokensFolder(join(settings.dataDir, 'outbox-staged'))
  const mailer = yield* nodemailerMailer({ outboxDir: join(settings.dataDir, 'outbox'), from: settings.mailFrom, smtpUrl: settings.smtpUrl, ...(settings.notice ? { notice: settings.notice } : {}) })
  return Context.make(MailOutbox, outbox).pipe(Context.add(Mailer, mailer))
}))
