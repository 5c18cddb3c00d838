import { Effect } from 'effect'
import type { WebhookEndpointDisabled } from '../domain/webhook/events.js'
import { Mailer } from '../ports/mail.js'
import type { EventEnvelope, StoreUnavailable } from '../ports/event-store.js'
import { defineProcessor } from './processor.js'
import type { Run } from './runner.js'

export interface WebhookNoticesOptions<R> {
  /** The users of an organization (the users read model). */
  readonly orgUsers: (orgId: string) => Effect.Effect<readonly { readonly user_id: string; readonly email: string }[], StoreUnavailable, R>
  readonly log: (message: string, detail?: unknown) => void
}

const disabledMail = (to: string, event: WebhookEndpointDisabled) => ({
  to,
  subject: 'A webhook endpoint was disabled',
  text: [
    `Scrapeworks disabled the webhook endpoint ${event.endpoint_id} at ${event.disabled_at}.`,
    '',
    event.message,
    '',
    'Enable it again with PATCH /v1/webhook-endpoints/{id} {"enabled": true}; events recorded while it was disabled are not sent.',
    '',
  ].join('\n'),
})

/**
 * Never silently: a disabled endpoint (410 Gone, or 3 days of failures) is mailed to every user of its organization.
 * The message id derives from the disabling event and the user, so a redelivered event rewrites the same message.
 * (The disabling event itself is the audit entry.)
 */
export const makeWebhookNotices = <R>(options: WebhookNoticesOptions<R>, run: Run<R | Mailer>) => {
  const notify = (event: WebhookEndpointDisabled, envelope: EventEnvelope) =>
    Effect.gen(function* () {
      const mailer = yield* Mailer
      const users = yield* options.orgUsers(event.org_id)
      if (users.length === 0) options.log('a disabled webhook endpoint has no user to notify by e-mail', { endpoint_id: event.endpoint_id })
      yield* Effect.forEach(users, (user) => mailer.send({ ...disabledMail(user.email, event), id: `webhook-disabled-${envelope.event_id}-${user.user_id}` }), { discard: true })
    })
  return defineProcessor({
    name: 'processor.webhook-notices',
    categories: ['webhook-endpoint'],
    types: ['WebhookEndpointDisabled'],
    log: options.log,
    handle: async (event, envelope) => {
      if (event._tag === 'WebhookEndpointDisabled') await run(notify(event, envelope))
    },
  })
}
