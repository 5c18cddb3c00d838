import t from 'tap'
import { makeManualClock } from '../../infra/clock/manual.js'
import { startFixtureSite } from '../fixtures/site.js'
import { sampleOf } from '../helpers/prometheus.js'
import { startService, waitFor } from '../helpers/service.js'
import { answerWith, startReceiver } from '../helpers/webhook-receiver.js'

/**
 * The operations metrics move by exactly what happened: webhook attempts by outcome, purges by kind, and the delay
 * of a scheduled fire, on a manual clock so the delay is known to the second.
 */
const FIVE_MINUTES = 300_000
// A little after a five-minute boundary, so the first fire of `*/5` is the next boundary.
const start = new Date(Math.ceil(Date.now() / FIVE_MINUTES) * FIVE_MINUTES + 10_000)
const clock = makeManualClock(start)
const site = await startFixtureSite()
const flaky = await startReceiver((n, received, res) => answerWith(n === 0 ? 500 : 200)(n, received, res))
const gone = await startReceiver(answerWith(410))
const svc = await startService({
  clock,
  allowlist: [`127.0.0.1:${site.port}`, flaky.allowlistEntry, gone.allowlistEntry],
  env: { WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_SCHEDULE: '60', PURGE_INTERVAL_SECONDS: '3600', SCHEDULER_POLL_MS: '50' },
})
t.teardown(async () => { await svc.close(); await site.close(); await flaky.close(); await gone.close() })
const { key } = await svc.createOrg('business')

const scrape = async () => (await fetch(`${svc.base}/metrics`)).text()
const count = (text: string, name: string, labels: Record<string, string>) => {
  const value = sampleOf(text, name, labels)
  return Number.isNaN(value) ? 0 : value
}
/** Waits until `name` moved by at least `least` since `before`; answers the scrape then. */
const moved = async (before: string, name: string, labels: Record<string, string>, least: number) => {
  let after = ''
  await waitFor(async () => {
    after = await scrape()
    return count(after, name, labels) - count(before, name, labels) >= least
  }, 20_000)
  return after
}

t.test('webhook delivery attempts by outcome: a 500 then a 200 on one endpoint, a 410 on another', async (t) => {
  const before = await scrape()
  const endpointOf = async (url: string) => {
    const created = await svc.api('POST', '/v1/webhook-endpoints', { key, body: { url, enabled_events: ['schedule.monitor_paused'] } })
    t.equal(created.status, 201)
    return created.body.endpoint_id as string
  }
  const flakyId = await endpointOf(flaky.url)
  const goneId = await endpointOf(gone.url)
  t.equal((await svc.api('POST', `/v1/webhook-endpoints/${flakyId}/test`, { key })).status, 202)
  t.equal((await svc.api('POST', `/v1/webhook-endpoints/${goneId}/test`, { key })).status, 202)
  await moved(before, 'scrapeworks_webhook_delivery_attempts_total', { outcome: 'retrying' }, 1)
  // The retry is due 60 s later on the service's clock.
  clock.advance(61_000)
  await moved(before, 'scrapeworks_webhook_delivery_attempts_total', { outcome: 'succeeded' }, 1)
  await waitFor(() => gone.received.length === 1)
  const settled = await moved(before, 'scrapeworks_webhook_delivery_attempts_total', { outcome: 'gone' }, 1)
  const delta = (outcome: string) => count(settled, 'scrapeworks_webhook_delivery_attempts_total', { outcome }) - count(before, 'scrapeworks_webhook_delivery_attempts_total', { outcome })
  t.same(['retrying', 'succeeded', 'gone', 'exhausted'].map(delta), [1, 1, 1, 0], 'one attempt per outcome, none exhausted')
  t.equal(flaky.received.length, 2)
})

t.test('purge counts: a deleted job is purged with its artifacts and their blobs', async (t) => {
  const submitted = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `${site.origin}/page` } })
  const result = await svc.waitForResult(key, submitted.body.job_id)
  t.equal(result.body.status, 'succeeded')
  const artifacts = (result.body.artifacts as unknown[]).length
  t.ok(artifacts >= 1)
  const before = await scrape()
  t.equal((await svc.api('DELETE', `/v1/jobs/${submitted.body.job_id}`, { key })).status, 202)
  // The purger sweeps every PURGE_INTERVAL_SECONDS of the clock.
  clock.advance(3_601_000)
  const after = await moved(before, 'scrapeworks_purged_total', { kind: 'blob' }, artifacts)
  const delta = (kind: string) => count(after, 'scrapeworks_purged_total', { kind }) - count(before, 'scrapeworks_purged_total', { kind })
  t.same([delta('job'), delta('artifact'), delta('blob')], [1, artifacts, artifacts])
})

t.test('monitor fire delay: a run fired 90 s after its instant is observed as 90 s', async (t) => {
  const created = await svc.api('POST', '/v1/monitors', { key, body: { name: 'delay', cron: '*/5 * * * *', job_type: 'light', target_url: `${site.origin}/page` } })
  t.equal(created.status, 201)
  const instant = Date.parse(created.body.next_run_at)
  const before = await scrape()
  clock.set(new Date(instant + 90_000))
  const after = await moved(before, 'scrapeworks_monitor_fire_delay_seconds_count', { source: 'monitors' }, 1)
  const delta = (name: string, labels: Record<string, string>) => count(after, name, labels) - count(before, name, labels)
  t.equal(delta('scrapeworks_monitor_fire_delay_seconds_count', { source: 'monitors' }), 1)
  t.equal(delta('scrapeworks_monitor_fire_delay_seconds_sum', { source: 'monitors' }), 90)
  t.equal(delta('scrapeworks_monitor_fire_delay_seconds_bucket', { source: 'monitors', le: '60' }), 0)
  t.equal(delta('scrapeworks_monitor_fire_delay_seconds_bucket', { source: 'monitors', le: '300' }), 1)
  const runs = await svc.api('GET', `/v1/monitors/${created.body.id}/runs`, { key })
  t.equal(runs.body.items.length, 1, 'one fire')
})
