import t from 'tap'
import { Webhook } from 'standardwebhooks'
import { JobFailed, JobSucceeded } from '../../domain/job/events.js'
import type { ChangeMemo } from '../../domain/monitor/detection-decider.js'
import { ChangeDetected, ChangeSummarized, ChangeSummaryUnavailable, MonitorBaselineRecorded } from '../../domain/monitor/detection-events.js'
import { MonitorPaused, MonitorRunSkipped } from '../../domain/monitor/events.js'
import { mappingOf, SUBSCRIBABLE_KINDS, type SourceContext } from '../../domain/webhook/kinds.js'
import { WebhookPingRequested } from '../../domain/webhook/events.js'
import { DEFAULT_RETRY_LADDER, JITTER_SHARE, nextAttemptAt, parseRetryLadder, RETRY_WINDOW_MS, retryAfterMs } from '../../domain/webhook/retry-ladder.js'
import { signatureHeader } from '../../domain/webhook/signing.js'
import type { DomainEvent } from '../../domain/streams.js'

const envelope = { event_id: 'src-1', org_id: 'o1', occurred_at: '2026-11-23T00:00:00.000Z' }
const artifact = (id: string) => ({ artifact_id: id, artifact_type: 'html', content_type: 'text/html', size: 10, sha256: 'a'.repeat(64), blob_key: `k/${id}`, created_at: envelope.occurred_at })
const drafts = (event: DomainEvent, context: SourceContext = {}) => mappingOf(event)?.map(event as never, envelope, context) ?? []

t.test('the mapping table: one row per domain event, kinds and payloads', async (t) => {
  const succeeded = drafts(new JobSucceeded({ job_id: 'j1', manifest: {}, artifacts: [artifact('a1'), artifact('a2')], finished_at: envelope.occurred_at }))
  t.same(succeeded.map((d) => [d.kind, d.key]), [['job.completed', 'job.completed'], ['artifact.ready', 'artifact.ready:a1'], ['artifact.ready', 'artifact.ready:a2']])
  t.match(succeeded[0]!.data, { job_id: 'j1', status: 'succeeded', failure_reason: null })
  t.notOk('blob_key' in succeeded[1]!.data, 'no storage internals in payloads')
  const failed = drafts(new JobFailed({ job_id: 'j2', failure_reason: 'http_error', message: 'target answered 500', finished_at: envelope.occurred_at }))
  t.same(failed.map((d) => d.kind), ['job.completed'])
  t.match(failed[0]!.data, { status: 'failed', failure_reason: 'http_error' })
  const skipped = drafts(new MonitorRunSkipped({ monitor_id: 'm1', org_id: 'o1', run_id: 'r1', status: 'skipped_quota', detail: 'credits', skipped_at: envelope.occurred_at }))
  t.match(skipped, [{ kind: 'schedule.run_skipped', data: { monitor_id: 'm1', status: 'skipped_quota' } }])
  const paused = drafts(new MonitorPaused({ monitor_id: 'm1', org_id: 'o1', reason: 'failures', detail: '5 failed runs', paused_at: envelope.occurred_at }))
  t.match(paused, [{ kind: 'schedule.monitor_paused', data: { monitor_id: 'm1', reason: 'failures' } }])
  const ping = drafts(new WebhookPingRequested({ endpoint_id: 'e1', org_id: 'o1', requested_at: envelope.occurred_at }))
  t.match(ping, [{ kind: 'ping', only_endpoint: 'e1' }])
  t.notOk(SUBSCRIBABLE_KINDS.includes('ping'), 'ping goes only to the endpoint that asked')
  t.ok(SUBSCRIBABLE_KINDS.includes('job.completed'))
})

t.test('the default ladder: every attempt inside 72 hours, whatever the jitter', async (t) => {
  const start = new Date('2026-11-23T00:00:00.000Z')
  for (const jitter of [0, 0.5, 0.999]) {
    let now = start
    const times: number[] = []
    for (let attempt = 1; ; attempt++) {
      const next = nextAttemptAt({ ladder: DEFAULT_RETRY_LADDER, attempt, now, windowStart: start, retryAfterMs: null, jitter })
      if (next === null) break
      const waited = next.getTime() - now.getTime()
      const step = DEFAULT_RETRY_LADDER[attempt - 1]! * 1000
      t.ok(waited <= step && waited >= step * (1 - JITTER_SHARE), `attempt ${attempt + 1} waits within the jitter band`)
      times.push(next.getTime())
      now = next
    }
    t.equal(times.length, DEFAULT_RETRY_LADDER.length, `${DEFAULT_RETRY_LADDER.length} retries (jitter ${jitter})`)
    t.ok(times.at(-1)! - start.getTime() <= RETRY_WINDOW_MS, 'the last inside the window')
  }
  const late = nextAttemptAt({ ladder: DEFAULT_RETRY_LADDER, attempt: 2, now: start, windowStart: start, retryAfterMs: 3_600_000, jitter: 0 })
  t.equal(late!.getTime() - start.getTime(), 3_600_000, 'Retry-After postpones')
  const early = nextAttemptAt({ ladder: DEFAULT_RETRY_LADDER, attempt: 2, now: start, windowStart: start, retryAfterMs: 1_000, jitter: 0 })
  t.equal(early!.getTime() - start.getTime(), 300_000, 'never brings forward')
  t.equal(nextAttemptAt({ ladder: DEFAULT_RETRY_LADDER, attempt: 1, now: start, windowStart: start, retryAfterMs: RETRY_WINDOW_MS + 1, jitter: 0 }), null, 'beyond the window: no more attempts')
  t.equal(retryAfterMs('120', start), 120_000)
  t.equal(retryAfterMs(new Date(start.getTime() + 60_000).toUTCString(), start), 60_000)
  t.equal(retryAfterMs('soon', start), null)
  t.same(parseRetryLadder('1, 2,3'), [1, 2, 3])
  t.throws(() => parseRetryLadder('1,,3'), /WEBHOOK_RETRY_SCHEDULE/)
  t.throws(() => parseRetryLadder('1,-2'), /WEBHOOK_RETRY_SCHEDULE/)
})

t.test('signatures verify with the reference standardwebhooks library, one per valid secret', async (t) => {
  const a = `whsec_${Buffer.alloc(32, 1).toString('base64')}`
  const b = `whsec_${Buffer.alloc(32, 2).toString('base64')}`
  const body = JSON.stringify({ event_id: 'evt_1', type: 'ping', created_at: 'x', data: {} })
  const timestamp = Math.floor(Date.now() / 1000)
  const header = signatureHeader([a, b], 'evt_1', timestamp, body)
  t.equal(header.split(' ').length, 2)
  for (const secret of [a, b]) {
    t.same(new Webhook(secret).verify(body, { 'webhook-id': 'evt_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': header }), JSON.parse(body))
  }
  t.equal(header.split(' ')[0], new Webhook(a).sign('evt_1', new Date(timestamp * 1000), body), 'the same bytes as the reference signer')
})

t.test('monitor activation and detected changes', async (t) => {
  const baseline = (reason: 'first_run' | 'reset') => drafts(new MonitorBaselineRecorded({ monitor_id: 'm1', run_id: 'r1', fingerprint: 'f', normalization_version: 1, reason, recorded_at: envelope.occurred_at }))
  t.match(baseline('first_run'), [{ kind: 'schedule.monitor_activated', data: { monitor_id: 'm1' } }])
  t.same(baseline('reset'), [], 'a re-baseline is not an activation')
  t.same(drafts(new ChangeDetected({
    monitor_id: 'm1', change_id: 'c1', run_id: 'r2', job_id: 'j3', old_fingerprint: 'a', new_fingerprint: 'b', change_ratio: 0.25, has_diff: true,
    diff_key: 'k', diff_lines: 4, notified_channels: ['webhook'], detected_at: envelope.occurred_at,
  })), [], 'the change itself sends nothing: its webhook waits for the summary to be settled')
  const memo = (channels: readonly string[], hasDiff = true): ChangeMemo => ({
    change_id: 'c1', run_id: 'r2', job_id: 'j3', detected_at: envelope.occurred_at, notified_channels: channels, change_ratio: 0.25, has_diff: hasDiff,
    diff_key: 'monitors/m1/diffs/c1.txt', summary_settled: true,
  })
  const summarized = new ChangeSummarized({ monitor_id: 'm1', change_id: 'c1', summary: 'Price changed', summarizer: 'rules', summarized_at: envelope.occurred_at })
  const unavailable = new ChangeSummaryUnavailable({ monitor_id: 'm1', change_id: 'c1', reason: 'failed', recorded_at: envelope.occurred_at })
  const change = (channels: ('webhook' | 'email')[]) => drafts(summarized, { change: memo(channels) })
  t.match(change(['webhook']), [{
    kind: 'schedule.change_detected',
    data: { change_id: 'c1', run_id: 'r2', job_id: 'j3', change_ratio: 0.25, summary: 'Price changed', diff_path: '/v1/monitors/m1/changes/c1/diff', diff_url: null },
    signed_links: [{ field: 'diff_url', blob_key: 'monitors/m1/diffs/c1.txt', download_name: 'diff-c1.txt' }],
  }])
  const withoutSummary = drafts(unavailable, { change: memo(['webhook']) })
  t.equal(withoutSummary.length, 1)
  t.notOk('summary' in withoutSummary[0]!.data, 'no summary: the field is absent')
  const noDiff = drafts(unavailable, { change: memo(['webhook'], false) })[0]!
  t.match(noDiff.data, { has_diff: false, diff_path: null, diff_url: null })
  t.equal(noDiff.signed_links, undefined, 'no diff, no link to sign')
  t.same(drafts(summarized), [], 'a change the monitor stream does not know sends nothing')
  t.same(change(['email']), [], 'not notified by webhook (cooldown or channel): nothing sent')
})
