/**
 * What follows a recorded change: its summary (best-effort, under a hard deadline; its webhook waits for the outcome,
 * so it carries the summary when there is one) and its e-mails: one per change and recipient, or one
 * digest per recipient, monitor and period once the period has ended. Every send is recorded as an event keyed by
 * (change, recipient) or (recipient, monitor, period), so a retried send never duplicates.
 */
import { Effect } from 'effect'
import { loadDetection, runDetectionCommand } from '../commands/detection.js'
import { orgSummariesEnabled } from '../commands/org-settings.js'
import { digestPeriodOf, type DigestCadence } from '../domain/detection/digest-period.js'
import { unsubscribeLink } from '../domain/detection/unsubscribe.js'
import { printableText } from '../domain/printable-text.js'
import type { DetectionState } from '../domain/monitor/detection-decider.js'
import type { ChangeDetected } from '../domain/monitor/detection-events.js'
import { BlobStore } from '../ports/blob-store.js'
import { Clock } from '../ports/clock.js'
import { DocumentStore } from '../ports/document-store.js'
import type { EventMetadata } from '../ports/event-store.js'
import { Mailer } from '../ports/mail.js'
import type { SummarizerService } from '../ports/summarizer.js'
import { changeMail, digestMail, type MailedChange, type MailedMonitor } from './change-mail.js'

export interface ChangeNoticeOptions {
  readonly summarizer: SummarizerService
  /** The hard deadline of one summary; past it the change simply has none. */
  readonly summaryDeadlineMs: number
  readonly publicBaseUrl: string
  readonly signingSecret: string
  readonly log: (message: string, detail?: unknown) => void
}

/**
 * The detector's own working state: per monitor, when its next digest is due. Written when a digested change is
 * recorded, so a restarted detector still knows what it owes (the events say what was already sent).
 */
export const DIGESTS_DUE = 'detector_digests_due'

const decoder = new TextDecoder()

const ctxOf = (orgId: string, metadata: EventMetadata, idSeed: string) => ({ org_id: orgId, metadata, idSeed })

const mailedMonitor = (monitorId: string, state: DetectionState): MailedMonitor =>
  ({ monitor_id: monitorId, name: state.monitor!.name, target_url: state.monitor!.target_url })

const diffOf = (key: string) => Effect.flatMap(BlobStore, (blobs) => blobs.get(key)).pipe(
  Effect.map((blob) => decoder.decode(blob.bytes).split('\n')),
  Effect.catchTag('BlobNotFound', () => Effect.succeed([] as string[])),
)

const recipientsOf = (state: DetectionState) =>
  (state.monitor?.detection.notify.email ?? []).filter((address) => !state.unsubscribed.has(address.toLowerCase()))

/**
 * The summary of a change, or none (switched off for the organization, failed, or past the deadline); either way
 * the outcome is recorded (ChangeSummarized or ChangeSummaryUnavailable), which sends the change's webhook. A
 * change settled before (a redelivered ChangeDetected) keeps what was recorded.
 */
const summarize = (options: ChangeNoticeOptions, change: ChangeDetected, state: DetectionState, diff: readonly string[], metadata: EventMetadata) =>
  Effect.gen(function* () {
    const monitor = state.monitor!
    const memo = state.changes.get(change.change_id)
    if (memo?.summary_settled) return memo.summary
    const record = (command: { readonly _tag: 'RecordSummary'; readonly summary: string; readonly summarizer: string } | { readonly _tag: 'RecordNoSummary'; readonly reason: 'switched_off' | 'failed' }) =>
      Effect.flatMap(Clock, (clock) => runDetectionCommand(
        { ...command, monitor_id: change.monitor_id, change_id: change.change_id, now: clock.now().toISOString() },
        ctxOf(monitor.org_id, metadata, `summary:${change.change_id}`),
      ))
    if (!(yield* orgSummariesEnabled(monitor.org_id))) {
      yield* record({ _tag: 'RecordNoSummary', reason: 'switched_off' })
      return undefined
    }
    const summary = yield* options.summarizer.summarize({
      monitor_name: monitor.name, target_url: monitor.target_url, mode: monitor.detection.mode, diff, change_ratio: change.change_ratio,
    }).pipe(
      Effect.timeoutFail({ duration: options.summaryDeadlineMs, onTimeout: () => ({ reason: `no summary within ${options.summaryDeadlineMs} ms` }) }),
      Effect.catchAll((failure) => Effect.sync(() => options.log(`change ${change.change_id} has no summary: ${failure.reason}`)).pipe(Effect.as(undefined))),
    )
    if (summary === undefined) {
      yield* record({ _tag: 'RecordNoSummary', reason: 'failed' })
      return undefined
    }
    // A model may echo what the page held, control bytes included: they go out in webhooks and e-mails.
    const shown = printableText(summary)
    yield* record({ _tag: 'RecordSummary', summary: shown, summarizer: options.summarizer.kind })
    return shown
  })

/** Reacts to a recorded change: summary, then per-change e-mails or the digest's due time. */
export const noticeChange = (options: ChangeNoticeOptions, change: ChangeDetected, metadata: EventMetadata) =>
  Effect.gen(function* () {
    const state = yield* loadDetection(change.monitor_id)
    if (!state.monitor || state.deleted) return
    const diff = yield* diffOf(change.diff_key)
    const summary = yield* summarize(options, change, state, diff, metadata)
    if (change.notified_channels.includes('digest')) {
      const cadence = state.monitor.detection.notify.digest
      if (cadence) yield* markDigestDue(change.monitor_id, digestPeriodOf(new Date(change.detected_at), cadence, state.monitor.timezone).ends_at)
    }
    if (!change.notified_channels.includes('email')) return
    const mailed: MailedChange = { change_id: change.change_id, detected_at: change.detected_at, change_ratio: change.change_ratio, diff, ...(summary ? { summary } : {}) }
    for (const recipient of recipientsOf(state)) {
      if (state.emailed.has(`${change.change_id} ${recipient}`)) continue
      const link = unsubscribeLink(options.publicBaseUrl, options.signingSecret, change.monitor_id, recipient)
      yield* (yield* Mailer).send(changeMail(recipient, mailedMonitor(change.monitor_id, state), mailed, link))
      const now = (yield* Clock).now().toISOString()
      yield* runDetectionCommand(
        { _tag: 'RecordChangeEmail', monitor_id: change.monitor_id, change_id: change.change_id, recipient, now },
        ctxOf(state.monitor.org_id, metadata, `change-mail:${change.change_id}:${recipient}`),
      )
    }
  })

const markDigestDue = (monitorId: string, dueAt: Date) => Effect.gen(function* () {
  const docs = yield* DocumentStore
  const current = yield* docs.get(DIGESTS_DUE, monitorId)
  const due = dueAt.toISOString()
  if (current && typeof current.due_at === 'string' && current.due_at <= due) return
  yield* docs.put(DIGESTS_DUE, { _id: monitorId, due_at: due })
})

interface PendingPeriod {
  readonly key: string
  readonly ends_at: Date
  readonly changes: string[]
}

/** Digested changes grouped by period, with the monitor's current cadence and time zone. */
const periodsOf = (state: DetectionState, cadence: DigestCadence): PendingPeriod[] => {
  const periods = new Map<string, PendingPeriod>()
  for (const memo of state.changes.values()) {
    if (!memo.notified_channels.includes('digest')) continue
    const period = digestPeriodOf(new Date(memo.detected_at), cadence, state.monitor!.timezone)
    const entry = periods.get(period.key) ?? { key: period.key, ends_at: period.ends_at, changes: [] }
    entry.changes.push(memo.change_id)
    periods.set(period.key, entry)
  }
  return [...periods.values()]
}

/** Sends the digests of one monitor whose periods have ended; answers when the next one is due (null: none owed). */
const sendMonitorDigests = (options: ChangeNoticeOptions, monitorId: string, now: Date) => Effect.gen(function* () {
  const state = yield* loadDetection(monitorId)
  const cadence = state.monitor?.detection.notify.digest
  if (!state.monitor || state.deleted || !cadence) return null
  const periods = periodsOf(state, cadence)
  const metadata = { correlation_id: `digest-${monitorId}`, causation_id: null, actor: 'detector' }
  for (const period of periods.filter((p) => p.ends_at <= now)) {
    for (const recipient of recipientsOf(state)) {
      if (state.digests.has(`${recipient} ${period.key}`)) continue
      const changes = yield* Effect.forEach(period.changes, (changeId) => Effect.gen(function* () {
        const memo = state.changes.get(changeId)!
        const diff = yield* diffOf(memo.diff_key)
        return { change_id: changeId, detected_at: memo.detected_at, change_ratio: memo.change_ratio, diff, ...(memo.summary ? { summary: memo.summary } : {}) }
      }))
      const link = unsubscribeLink(options.publicBaseUrl, options.signingSecret, monitorId, recipient)
      yield* (yield* Mailer).send(digestMail(recipient, mailedMonitor(monitorId, state), period.key, changes, link))
      yield* runDetectionCommand(
        { _tag: 'RecordDigest', monitor_id: monitorId, recipient, period: period.key, change_ids: period.changes, now: now.toISOString() },
        ctxOf(state.monitor.org_id, metadata, `digest:${monitorId}:${recipient}:${period.key}`),
      )
    }
  }
  const later = periods.filter((p) => p.ends_at > now).map((p) => p.ends_at.getTime())
  return later.length > 0 ? new Date(Math.min(...later)) : null
})

/** Sends every digest due by the clock's now; answers when the next one is due (null: none owed). */
export const sendDueDigests = (options: ChangeNoticeOptions) => Effect.gen(function* () {
  const docs = yield* DocumentStore
  const now = (yield* Clock).now()
  const due = yield* docs.find(DIGESTS_DUE, { due_at: { $lte: now.toISOString() } })
  for (const doc of due) {
    const next = yield* sendMonitorDigests(options, doc._id, now)
    if (next === null) yield* docs.delete(DIGESTS_DUE, doc._id)
    else yield* docs.put(DIGESTS_DUE, { _id: doc._id, due_at: next.toISOString() })
  }
  const upcoming = yield* docs.find(DIGESTS_DUE, {}, { sort: [['due_at', 'asc']], limit: 1 })
  return upcoming[0] ? new Date(upcoming[0].due_at as string) : null
})
