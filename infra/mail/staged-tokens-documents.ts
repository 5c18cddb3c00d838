import { Effect } from 'effect'
import type { DocumentStoreService } from '../../ports/document-store.js'
import { MailUnavailable, type MailOutboxService } from '../../ports/mail.js'

const COLLECTION = 'staged_mail_tokens'

/**
 * Scale-out MailOutbox: staged tokens in the shared document store, so the api process that stages a token and the
 * mailer process that sends it need no shared disk. A token stays only until its e-mail is sent.
 */
export const makeStagedTokensDocuments = (docs: DocumentStoreService): MailOutboxService => {
  const fail = Effect.mapError((cause: unknown) => new MailUnavailable({ cause }))
  return {
    stage: (hash, token) => docs.put(COLLECTION, { _id: hash, token, staged_at: new Date().toISOString() }).pipe(fail),
    read: (hash) => docs.get(COLLECTION, hash).pipe(Effect.map((doc) => (doc ? (doc.token as string) : null)), fail),
    remove: (hash) => docs.delete(COLLECTION, hash).pipe(fail),
  }
}
