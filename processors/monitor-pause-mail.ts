import { Effect } from 'effect'
import type { MonitorPaused } from '../domain/monitor/events.js'
import { isEmail } from '../domain/user/email-address.js'
import { Mailer } from '../ports/mail.js'
import type { DocumentStore } from '../ports/document-store.js'
import type { EventEnvelope } from '../ports/event-store.js'
import { loadMonitor } from '../commands/monitors.js'
import type { EventStore } from '../ports/event-store.js'
import { defineProcessor } from './processor.js'
import type { Run } from './runner.js'

export interface PauseMailOptions {
  readonly publicBaseUrl: string
  readonly log: (message: string, detail?: unknown) => void
  /** The organization's users who get the notice. */
  readonly recipientsOf: (orgId: string) => Effect.Effect<readonly { readonly id: string; readonly email: string }[], unknown, DocumentStore>
}

export const pauseMail = (input: { readonly to: string; readonly monitorName: string; readonly monitorId: string; readonly reason: string; readonly detail: string; readonly baseUrl: string }) => ({
  to: input.to,
  subject: `Monitor paused: ${input.monitorName}`,
  text: [
    `Your monitor "${input.monitorName}" (${input.monitorId}) was paused automatically (${input.reason}).`,
    '',
    input.detail,
    '',
    `Resume it once the cause is fixed: POST ${input.baseUrl}/v1/monitors/${input.monitorId}/resume`,
    '',
  ].join('\n'),
})

/**
 * Mails the organization's users when a monitor is paused automatically (3 non-delivering runs, or a plan change).
 * One message per user per pause: the message id derives from the MonitorPaused event, so a redelivery rewrites it.
 */
export const makePauseMailProcessor = (options: PauseMailOptions, run: Run<DocumentStore | EventStore | Mailer>) => {
  const mail = (paused: MonitorPaused, envelope: EventEnvelope) => Effect.gen(function* () {
    const monitor = yield* loadMonitor(paused.monitor_id)
    const name = monitor.status === 'none' ? paused.monitor_id : monitor.name
    const users = yield* options.recipientsOf(paused.org_id)
    const mailer = yield* Mailer
    for (const user of users) {
      if (!isEmail(user.email)) continue
      yield* mailer.send({
        ...pauseMail({ to: user.email, monitorName: name, monitorId: paused.monitor_id, reason: paused.reason, detail: paused.detail, baseUrl: options.publicBaseUrl }),
        id: `monitor-paused-${envelope.event_id}-${user.id}`,
      })
    }
  })
  return defineProcessor({
    name: 'processor.monitor-pause-mail',
    categories: ['monitor'],
    types: ['MonitorPaused'],
    log: options.log,
    handle: async (event, envelope) => {
      if (event._tag === 'MonitorPaused' && event.reason !== 'user') await run(mail(event, envelope))
    },
  })
}
