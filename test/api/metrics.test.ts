import t from 'tap'
import { CREDIT_WEIGHTS } from '../../domain/plans.js'
import { listenerPort } from '../../infra/metrics/listener.js'
import { startFixtureSite } from '../fixtures/site.js'
import { sampleOf } from '../helpers/prometheus.js'
import { startService, waitFor } from '../helpers/service.js'

const site = await startFixtureSite()
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`] })
t.teardown(async () => { await svc.close(); await site.close() })
const { key } = await svc.createOrg('pro')
const scrape = async () => {
  const answer = await fetch(`${svc.base}/metrics`)
  t.equal(answer.status, 200)
  t.match(answer.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  return answer.text()
}

t.test('counters move by the jobs and requests made, labelled by route template', async (t) => {
  const before = await scrape()
  const count = (text: string, name: string, labels: Record<string, string>) => {
    const value = sampleOf(text, name, labels)
    return Number.isNaN(value) ? 0 : value
  }
  const jobs = [
    { job_type: 'light', target_url: `${site.origin}/page` },
    { job_type: 'light', target_url: `${site.origin}/page` },
    { job_type: 'light', target_url: `${site.origin}/chain?n=3`, max_redirects: 1 },
  ]
  const ids: string[] = []
  for (const body of jobs) {
    const submitted = await svc.api('POST', '/v1/jobs', { key, body })
    t.equal(submitted.status, 202)
    ids.push(submitted.body.job_id)
  }
  const outcomes = await Promise.all(ids.map(async (id) => (await svc.waitForResult(key, id)).body.status))
  t.same(outcomes, ['succeeded', 'succeeded', 'failed'])
  const missing = await svc.api('GET', '/v1/jobs/00000000-0000-4000-8000-000000000000', { key })
  t.equal(missing.status, 404)
  await svc.api('GET', '/no/such/route')

  let after = ''
  await waitFor(async () => {
    after = await scrape()
    return count(after, 'scrapeworks_jobs_finished_total', { tier: 'light' }) - count(before, 'scrapeworks_jobs_finished_total', { tier: 'light' }) >= 3
  })
  const delta = (name: string, labels: Record<string, string>) => count(after, name, labels) - count(before, name, labels)
  t.equal(delta('scrapeworks_jobs_finished_total', { tier: 'light', outcome: 'succeeded' }), 2)
  t.equal(delta('scrapeworks_jobs_finished_total', { tier: 'light', outcome: 'failed' }), 1)
  t.equal(delta('scrapeworks_job_duration_seconds_count', { tier: 'light', outcome: 'succeeded' }), 2)
  t.equal(delta('scrapeworks_job_duration_seconds_bucket', { tier: 'light', outcome: 'failed', le: '+Inf' }), 1)
  t.equal(delta('scrapeworks_credits_charged_total', { tier: 'light' }), 2 * CREDIT_WEIGHTS.light, 'only succeeded jobs are charged')
  t.equal(delta('scrapeworks_http_requests_total', { route: '/v1/jobs', method: 'POST', status: '202' }), 3)
  t.equal(delta('scrapeworks_http_requests_total', { route: '/v1/jobs/:job_id', method: 'GET', status: '404' }), 1)
  t.equal(delta('scrapeworks_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' }), 1)
  t.ok(delta('scrapeworks_http_request_duration_seconds_count', { route: '/v1/jobs/:job_id/result', method: 'GET' }) >= 3)
  for (const id of ids) t.notOk(after.includes(id), 'no job id in any label')
  t.notOk(after.includes('/no/such/route'))
  t.equal(sampleOf(after, 'scrapeworks_queue_depth'), 0)
  t.equal(sampleOf(after, 'scrapeworks_webhook_retry_backlog'), 0)
  t.ok(sampleOf(after, 'scrapeworks_browser_pool_size', { tier: 'standard' }) >= 0)
  await waitFor(async () => sampleOf(await scrape(), 'scrapeworks_log_lag_positions', { subscriber: 'processor.fetcher' }) === 0)
  t.ok(sampleOf(after, 'scrapeworks_log_lag_positions', { subscriber: 'projection.jobs' }) >= 0, 'projections report their lag')
})

t.test('with METRICS_PORT, /metrics has a listener of its own and the API port does not serve it', async (t) => {
  const own = await startService({ roles: ['api', 'projector', 'fetcher'], env: { METRICS_PORT: '0' } })
  t.teardown(() => own.close())
  t.equal((await own.api('GET', '/metrics')).status, 404)
  const server = own.running.metricsServer
  t.ok(server)
  const answer = await fetch(`http://127.0.0.1:${listenerPort(server!)}/metrics`)
  t.equal(answer.status, 200)
  t.match(await answer.text(), /scrapeworks_queue_depth 0/)
})
