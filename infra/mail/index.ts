import { join } from 'node:path'
import { Effect } from 'effect'
import { makeNodemailerMailer } from './nodemailer-mailer.js'
import { Mailer, MailOutbox, type MailerService, type MailOutboxService } from '../../ports/mail.js'
import type { DocumentStoreService } from '../../ports/document-store.js'
import { makeStagedTokensDocuments } from './staged-tokens-documents.js'
import { makeStagedTokensFolder } from './staged-tokens-folder.js'

export interface MailSettings {
  readonly dataDir: string
  /** Where tokens wait for their e-mail when api and mailer run in different processes (scale-out). */
  readonly sharedStore?: DocumentStoreService
  readonly smtpUrl: string | null
  readonly mailFrom: string
}

export interface MailServices {
  readonly outbox: MailOutboxService
  readonly mailer: MailerService
  /** Supplies both mail ports to an effect, on top of the process runtime's services. */
  readonly provide: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, Exclude<Exclude<R, MailOutbox>, Mailer>>
}

/**
 * Embedded profile: `.eml` files in DATA_DIR/outbox/ (and SMTP when SMTP_URL is set); tokens waiting for their
 * e-mail in DATA_DIR/outbox-staged/, outside the folder of messages. Scale-out: tokens in the shared document store.
 */
export const makeMailServices = (settings: MailSettings): MailServices => {
  const outbox = settings.sharedStore ? makeStagedTokensDocuments(settings.sharedStore) : makeStagedTokensFolder(join(settings.dataDir, 'outbox-staged'))
  const mailer = makeNodemailerMailer({ outboxDir: join(settings.dataDir, 'outbox'), from: settings.mailFrom, smtpUrl: settings.smtpUrl })
  return {
    outbox,
    mailer,
    provide: (effect) => effect.pipe(Effect.provideService(MailOutbox, outbox), Effect.provideService(Mailer, mailer)),
  }
}
