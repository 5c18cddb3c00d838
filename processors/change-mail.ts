/** Change e-mails: one per change, or one digest per recipient, monitor and period. Both carry an unsubscribe link. */
import { createHash } from 'node:crypto'
import type { OutgoingMail } from '../ports/mail.js'

/** Diff lines quoted in an e-mail; the full diff is one API call away. */
const MAX_DIFF_LINES = 40

export interface MailedChange {
  readonly change_id: string
  readonly detected_at: string
  readonly change_ratio: number | null
  readonly summary?: string
  readonly diff: readonly string[]
}

export interface MailedMonitor {
  readonly monitor_id: string
  readonly name: string
  readonly target_url: string
}

/** Message ids are stable per cause (a retried send rewrites the same message) and carry no address. */
const idOf = (...parts: string[]) => createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 40)

const unsubscribeHeaders = (link: string) => ({ 'List-Unsubscribe': `<${link}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' })

const describe = (change: MailedChange) => [
  `Detected at ${change.detected_at}${change.change_ratio === null ? '' : ` (change ratio ${change.change_ratio})`}.`,
  ...(change.summary ? [`Summary: ${change.summary}`] : []),
  '',
  ...change.diff.slice(0, MAX_DIFF_LINES),
  ...(change.diff.length > MAX_DIFF_LINES ? [`… ${change.diff.length - MAX_DIFF_LINES} more lines`] : []),
]

const footer = (monitor: MailedMonitor, unsubscribe: string) => [
  '',
  `Changes of this monitor: GET /v1/monitors/${monitor.monitor_id}/changes`,
  `Stop these e-mails: ${unsubscribe}`,
  '',
]

export const changeMail = (to: string, monitor: MailedMonitor, change: MailedChange, unsubscribe: string): OutgoingMail => ({
  to,
  id: `change-${idOf(change.change_id, to)}`,
  subject: `Change detected: ${monitor.name}`,
  headers: unsubscribeHeaders(unsubscribe),
  text: [`The page watched by monitor "${monitor.name}" (${monitor.target_url}) changed.`, '', ...describe(change), ...footer(monitor, unsubscribe)].join('\n'),
})

export const digestMail = (to: string, monitor: MailedMonitor, period: string, changes: readonly MailedChange[], unsubscribe: string): OutgoingMail => ({
  to,
  id: `digest-${idOf(monitor.monitor_id, period, to)}`,
  subject: `${changes.length} change${changes.length === 1 ? '' : 's'} (${period.replace(':', ' ')}): ${monitor.name}`,
  headers: unsubscribeHeaders(unsubscribe),
  text: [
    `The page watched by monitor "${monitor.name}" (${monitor.target_url}) changed ${changes.length} time${changes.length === 1 ? '' : 's'} in the ${period.replace(':', ' period from ')}.`,
    ...changes.flatMap((change, i) => ['', `— Change ${i + 1} of ${changes.length}`, ...describe(change)]),
    ...footer(monitor, unsubscribe),
  ].join('\n'),
})
