/**
 * The detector in a real embedded process (SQLite, projector, API, a real SMTP server, a manual clock): delivered
 * monitor runs are fed in as the monitor's run events and its job's stored page, exactly what the scheduler and the
 * fetcher leave behind, so this test needs neither.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Effect } from 'effect'
import t from 'tap'
import type { DetectionConfig } from '../../domain/monitor/detection-config.js'
import { STREAMS } from '../../domain/streams.js'
import { makeManualClock } from '../../infra/clock/manual.js'
import { EventStore } from '../../ports/event-store.js'
import { setOrgSummaries } from '../../commands/org-settings.js'
import { startSmtpServer } from '../helpers/smtp.js'
import { detectorFeed } from '../helpers/detector-feed.js'
import { startService, waitFor } from '../helpers/service.js'
import { startReceiver } from '../helpers/webhook-receiver.js'

const FIXTURES = fileURLToPath(new URL('../fixtures/detection/', import.meta.url))
const page = (name: string) => readFileSync(FIXTURES + name, 'utf8')

const clock = makeManualClock('2026-11-23T09:00:00.000Z')
const smtp = await startSmtpServer()
const receiver = await startReceiver()
const service = await startService({
  allowlist: ['127.0.0.1:9', receiver.allowlistEntry], roles: ['api', 'relay', 'projector', 'detector', 'webhooks'], clock,
  env: { SMTP_URL: smtp.url, WEBHOOK_POLL_MS: '50' },
})
t.teardown(async () => {
  await service.close()
  await smtp.close()
  await receiver.close()
})
const org = await service.createOrg('pro')
const metadata = { correlation_id: 'test', causation_id: null, actor: 'test' }
const feed = detectorFeed(service, org.org_id, clock)
const { append, monitorHistory } = feed
const monitorEvents = async (monitorId: string) => (await monitorHistory(monitorId)).map((r) => r.type)
/** The types of a monitor's events about one run. */
const runEvents = async (monitorId: string, runId: string) => (await feed.runRecords(monitorId, runId)).map((r) => r.type)

const DETECTION: DetectionConfig = {
  enabled: true, mode: 'text', selector: null, ignore_selectors: [], min_change_ratio: 0, consecutive: 1, cooldown_seconds: 0,
  notify: { webhook: true, email: ['owner@example.com'], digest: null },
}

const createMonitor = (detection: DetectionConfig, timezone = 'Europe/Berlin') =>
  feed.createMonitor(detection, { name: 'Shoe price', timezone, targetUrl: 'http://127.0.0.1:9/product' })

/** One delivered run (as the fetcher leaves it): the type of the detector's answer. */
const deliver = async (monitorId: string, html: string) => (await feed.deliver(monitorId, html, 20_000)).type

t.test('a monitor: baseline, noise is no change, a real change is one change with its diff, e-mail and unsubscribe', async (t) => {
  const monitorId = await createMonitor(DETECTION)
  t.equal(await deliver(monitorId, page('noise/01-script-nonce-product.before.html')), 'MonitorBaselineRecorded', 'the first delivered run is the baseline')
  t.equal(await deliver(monitorId, page('noise/01-script-nonce-product.after.html')), 'MonitorRunEvaluated', 'a rotated nonce is no change')
  clock.advance(3_600_000)
  t.equal(await deliver(monitorId, page('changes/price.after.html')), 'ChangeDetected', 'the price change is a change')

  let changes: any
  await waitFor(async () => {
    changes = await service.api('GET', `/v1/monitors/${monitorId}/changes`, { key: org.key })
    return changes.status === 200 && changes.body.total === 1 && changes.body.items[0].summary !== undefined
  }, 20_000)
  const change = changes.body.items[0]
  t.match(change, { change_ratio: 0.1379, has_diff: true, notified_channels: ['webhook', 'email'], detected_at: '2026-11-23T10:00:00.000Z' })
  t.equal(change.summary, 'Price changed from $129.99 to $119.99', 'the built-in summary')
  const one = await service.api('GET', `/v1/monitors/${monitorId}/changes/${change.change_id}`, { key: org.key })
  t.same(one.body, change, 'the change record')
  const diff = await service.api('GET', `/v1/monitors/${monitorId}/changes/${change.change_id}/diff`, { key: org.key })
  t.equal(diff.text, '-Price: $129.99\n+Price: $119.99', 'the diff')

  const other = await service.createOrg('pro')
  t.equal((await service.api('GET', `/v1/monitors/${monitorId}/changes`, { key: other.key })).status, 404, 'another organization sees no monitor')
  t.equal((await service.api('GET', `/v1/monitors/${monitorId}/changes/${change.change_id}`, { key: other.key })).status, 404, 'nor its change')

  const monitor = await service.api('GET', `/v1/monitors/${monitorId}`, { key: org.key })
  if (monitor.status === 200) t.match(monitor.body.detection ?? monitor.body, { health: { status: 'ok', last_change_at: '2026-11-23T10:00:00.000Z' } })

  await waitFor(() => smtp.received.some((m) => m.recipients.includes('owner@example.com')), 20_000)
  const mails = smtp.received.filter((m) => m.recipients.includes('owner@example.com'))
  t.equal(mails.length, 1, 'one e-mail for the change')
  t.match(mails[0].text, /Summary: Price changed from \$129\.99 to \$119\.99/)
  t.match(mails[0].text, /-Price: \$129\.99/)
  const unsubscribe = /<([^>]+)>/.exec(mails[0].headers['list-unsubscribe'] ?? '')?.[1]
  t.ok(unsubscribe, 'a List-Unsubscribe header')
  t.equal(mails[0].headers['list-unsubscribe-post'], 'List-Unsubscribe=One-Click')
  const path = new URL(unsubscribe!).pathname + new URL(unsubscribe!).search
  t.equal((await service.api('GET', path)).status, 200, 'the link opens a confirmation page')
  t.equal((await service.api('POST', path.replace(/token=[^&]+/, 'token=forged'))).status, 403, 'a forged token is refused')
  const done = await service.api('POST', path, { rawBody: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(done.status, 200, 'one-click unsubscribe')
  const unsubscribed = await service.run(Effect.gen(function* () {
    const history = yield* (yield* EventStore).readStream(STREAMS.monitor.stream(monitorId))
    return history.find((r) => r.type === 'MonitorEmailUnsubscribed')?.data as { unsubscribed_at?: string } | undefined
  }))
  t.equal(unsubscribed?.unsubscribed_at, clock.now().toISOString(), 'recorded as an event, at the time of the Clock')

  t.equal(await deliver(monitorId, page('changes/price.before.html')), 'ChangeDetected', 'the price goes back: another change')
  await new Promise((r) => setTimeout(r, 500))
  t.equal(smtp.received.filter((m) => m.recipients.includes('owner@example.com')).length, 1, 'no e-mail after unsubscribing')
})

t.test('digests: one per recipient and period once the period ended, none for an empty period', async (t) => {
  clock.set('2026-11-24T08:00:00.000Z')
  const recipient = 'digest@example.com'
  const monitorId = await createMonitor({ ...DETECTION, notify: { webhook: true, email: [recipient], digest: 'daily' } })
  await deliver(monitorId, page('changes/price.before.html'))
  clock.set('2026-11-24T09:00:00.000Z')
  t.equal(await deliver(monitorId, page('changes/price.after.html')), 'ChangeDetected')
  clock.set('2026-11-24T10:00:00.000Z')
  t.equal(await deliver(monitorId, page('changes/price.before.html')), 'ChangeDetected')
  const digests = () => smtp.received.filter((m) => m.recipients.includes(recipient))
  await new Promise((r) => setTimeout(r, 500))
  t.equal(digests().length, 0, 'nothing before the period ends')

  clock.set('2026-11-24T22:59:59.000Z')
  await new Promise((r) => setTimeout(r, 300))
  t.equal(digests().length, 0, 'nothing a second before midnight in Berlin')
  clock.set('2026-11-24T23:00:00.000Z')
  await waitFor(() => digests().length > 0, 20_000)
  t.equal(digests().length, 1, 'one digest at midnight in Berlin')
  t.match(digests()[0].headers.subject, /^2 changes \(daily 2026-11-24\)/)
  t.ok(digests()[0].headers['list-unsubscribe'], 'with List-Unsubscribe')

  clock.set('2026-11-26T23:00:00.000Z')
  await new Promise((r) => setTimeout(r, 500))
  t.equal(digests().length, 1, 'empty periods send nothing, and the sent one is not sent again')
  const events = await monitorEvents(monitorId)
  t.equal(events.filter((e) => e === 'DigestSent').length, 1, 'one DigestSent')
})

t.test('the change webhook: its ratio, the summary when there is one, and a signed diff link that works without a key and expires', async (t) => {
  clock.set('2026-11-27T09:00:00.000Z')
  const endpoint = await service.api('POST', '/v1/webhook-endpoints', { key: org.key, body: { url: receiver.url, enabled_events: ['schedule.change_detected'] } })
  t.equal(endpoint.status, 201)
  const monitorId = await createMonitor({ ...DETECTION, notify: { webhook: true, email: [], digest: null } })
  await deliver(monitorId, page('changes/price.before.html'))
  t.equal(await deliver(monitorId, page('changes/price.after.html')), 'ChangeDetected')
  await waitFor(() => receiver.received.length === 1, 20_000)
  const [hook] = receiver.received
  t.equal(hook!.event.type, 'schedule.change_detected')
  t.match(hook!.event.data, {
    monitor_id: monitorId, change_ratio: 0.1379, summary: 'Price changed from $129.99 to $119.99', has_diff: true,
    diff_path: `/v1/monitors/${monitorId}/changes/${hook!.event.data.change_id}/diff`, diff_url_expires_at: '2026-11-27T09:05:00.000Z',
  }, 'sent once the summary was recorded, with it; the link lives ARTIFACT_URL_TTL_SECONDS (300 s) from the attempt')
  const link = new URL(hook!.event.data.diff_url)
  const diffAt = `${link.pathname}${link.search}`
  const fetched = await service.api('GET', diffAt)
  t.equal(fetched.status, 200, 'the link needs no API key')
  t.equal(fetched.text, '-Price: $129.99\n+Price: $119.99', 'it is the change\'s diff')
  const tampered = new URL(link)
  tampered.searchParams.set('key', tampered.searchParams.get('key')!.replace(/\.diff$/, '.html'))
  t.equal((await service.api('GET', `${tampered.pathname}${tampered.search}`)).status, 403, 'another blob under the same signature is refused')
  const forged = new URL(link)
  forged.searchParams.set('sig', `${forged.searchParams.get('sig')!.slice(0, -2)}AA`)
  t.equal((await service.api('GET', `${forged.pathname}${forged.search}`)).status, 403, 'a tampered signature is refused')
  clock.set('2026-11-27T09:04:59.000Z')
  t.equal((await service.api('GET', diffAt)).status, 200, 'still valid a second before it expires')
  clock.set('2026-11-27T09:05:01.000Z')
  const expired = await service.api('GET', diffAt)
  t.equal(expired.status, 410, 'expired by the clock')
  t.match(expired.text, /url_expired/)

  await service.run(setOrgSummaries({ org_id: org.org_id, enabled: false, now: clock.now().toISOString(), metadata }))
  t.teardown(() => service.run(setOrgSummaries({ org_id: org.org_id, enabled: true, now: clock.now().toISOString(), metadata })))
  clock.set('2026-11-27T10:00:00.000Z')
  t.equal(await deliver(monitorId, page('changes/price.before.html')), 'ChangeDetected')
  await waitFor(() => receiver.received.length === 2, 20_000)
  const second = receiver.received[1]!.event
  t.notOk('summary' in second.data, 'summaries switched off: the webhook has no summary field')
  t.match(second.data, { change_ratio: 0.1379, has_diff: true, diff_url: /^http/ })
  t.ok((await monitorEvents(monitorId)).includes('ChangeSummaryUnavailable'), 'the missing summary is recorded, which sent the webhook')
  await new Promise((r) => setTimeout(r, 300))
  t.equal(receiver.received.length, 2, 'one webhook per change')
})
