import t from 'tap'
import { CREDIT_USAGE } from '../../projections/credits.js'
import { findDocs } from '../../projections/projection.js'
import { startFixtureSite } from '../fixtures/site.js'
import { sampleOf } from '../helpers/prometheus.js'
import { fixturesOf } from '../helpers/recipe-fixtures.js'
import { startRecipeSite } from '../helpers/recipe-site.js'
import { startService, waitFor } from '../helpers/service.js'

/**
 * Money is one decision: for a mixed workload (the three tiers, a failed job, a page stored though it answered 404,
 * monitor runs delivered, blocked and skipped, a recipe run billed by pages) the credit ledger, GET /v1/usage, the
 * jobs' `credits_charged` (what the dashboard's usage page sums) and /metrics all show the same total, the one the
 * CreditsCharged events record.
 */
const site = await startFixtureSite()
const recipeSite = await startRecipeSite(['https://api.github.com'])
const svc = await startService({
  allowlist: [`127.0.0.1:${site.port}`, `127.0.0.1:${recipeSite.port}`], env: { RECIPE_ORIGIN_OVERRIDES: recipeSite.overrides },
})
t.teardown(async () => { await svc.close(); await site.close(); await recipeSite.close() })
const org = await svc.createOrg('pro')

const metricsTotal = async () => {
  const text = await (await fetch(`${svc.base}/metrics`)).text()
  return ['light', 'standard', 'stealth'].reduce((sum, tier) => {
    const value = sampleOf(text, 'scrapeworks_credits_charged_total', { tier })
    return sum + (Number.isNaN(value) ? 0 : value)
  }, 0)
}

t.test('ledger, usage, job records and metrics agree on a mixed workload', async (t) => {
  const metricsBefore = await metricsTotal()
  const jobs = [
    { job_type: 'light', target_url: `${site.origin}/page` },
    { job_type: 'light', target_url: `${site.origin}/status?code=404` },
    { job_type: 'light', target_url: `${site.origin}/chain?n=3`, max_redirects: 1 },
    { job_type: 'standard', target_url: `${site.origin}/page` },
    { job_type: 'stealth', target_url: `${site.origin}/page` },
  ]
  const ids: string[] = []
  for (const body of jobs) ids.push((await svc.api('POST', '/v1/jobs', { key: org.key, body })).body.job_id)
  const issues = fixturesOf('code-issues').find((f) => f.name === 'ok')!
  recipeSite.use(issues)
  const recipeRun = await svc.api('POST', '/v1/recipes/code-issues/runs', { key: org.key, body: { input: issues.input, max_pages: 5 } })
  t.equal(recipeRun.status, 201)
  ids.push(recipeRun.body.job_id)
  const results = await Promise.all(ids.map(async (id) => (await svc.waitForResult(org.key, id, 180_000)).body))
  t.same(results.map((r) => r.status), ['succeeded', 'succeeded', 'failed', 'succeeded', 'succeeded', 'succeeded'])
  t.equal(results[5].pages_fetched, 2, 'the recipe run fetched two pages')

  const runMonitor = async (path: string) => {
    const created = await svc.api('POST', '/v1/monitors', { key: org.key, body: { name: path, cron: '0 3 * * *', timezone: 'UTC', job_type: 'light', target_url: `${site.origin}${path}` } })
    const monitorId = created.body.id as string
    const runId = (await svc.api('POST', `/v1/monitors/${monitorId}/runs`, { key: org.key })).body.run_id as string
    let status = ''
    await waitFor(async () => {
      const runs = (await svc.api('GET', `/v1/monitors/${monitorId}/runs`, { key: org.key })).body.items as { run_id: string; status: string }[]
      status = runs.find((run) => run.run_id === runId)?.status ?? ''
      return !['queued', 'pending', 'minted', ''].includes(status)
    }, 30_000)
    return status
  }
  t.equal(await runMonitor('/page'), 'delivered')
  t.equal(await runMonitor('/status?code=403'), 'blocked')

  // light 1 + light stored 404 1 + standard 5 + stealth 30 + two recipe pages + delivered monitor run 1; the failed
  // job and the blocked run are free.
  const expected = 1 + 1 + 5 + 30 + 2 + 1
  await waitFor(async () => (await svc.api('GET', '/v1/usage', { key: org.key })).body.credits_used === expected, 20_000).catch(() => {})
  const usage = (await svc.api('GET', '/v1/usage', { key: org.key })).body
  t.equal(usage.credits_used, expected, 'GET /v1/usage')
  const ledger = await svc.run(findDocs(CREDIT_USAGE, { org_id: org.org_id }))
  t.equal(ledger.reduce((sum, doc) => sum + doc.credits_used, 0), expected, 'the credit ledger')
  const listed = (await svc.api('GET', '/v1/jobs?per_page=100', { key: org.key })).body.items as { status: string; credits_charged: number | null }[]
  t.equal(listed.reduce((sum, job) => sum + (job.credits_charged ?? 0), 0), expected, 'the jobs\' credits_charged, which the dashboard sums')
  t.ok(listed.every((job) => job.credits_charged !== null), 'every finished job says what it cost')
  t.equal(await metricsTotal() - metricsBefore, expected, '/metrics')
})

t.test('a skipped monitor run costs nothing anywhere', async (t) => {
  const starter = await svc.createOrg('starter')
  const metricsBefore = await metricsTotal()
  // The starter plan's ten concurrent jobs are held by slow pages, so the monitor's run is skipped at admission.
  const slow = await Promise.all(Array.from({ length: 10 }, async () => (await svc.api('POST', '/v1/jobs', { key: starter.key, body: { job_type: 'light', target_url: `${site.origin}/slow?ms=3000` } })).body.job_id as string))
  const created = await svc.api('POST', '/v1/monitors', { key: starter.key, body: { name: 'skipped', cron: '0 3 * * *', timezone: 'UTC', job_type: 'light', target_url: `${site.origin}/page` } })
  const runId = (await svc.api('POST', `/v1/monitors/${created.body.id}/runs`, { key: starter.key })).body.run_id as string
  let status = ''
  await waitFor(async () => {
    const runs = (await svc.api('GET', `/v1/monitors/${created.body.id}/runs`, { key: starter.key })).body.items as { run_id: string; status: string }[]
    status = runs.find((run) => run.run_id === runId)?.status ?? ''
    return status.startsWith('skipped')
  }, 30_000).catch(() => {})
  t.match(status, /^skipped/, 'the run was skipped')
  for (const id of slow) await svc.waitForResult(starter.key, id, 60_000)
  const expected = 10
  await waitFor(async () => (await svc.api('GET', '/v1/usage', { key: starter.key })).body.credits_used === expected, 20_000).catch(() => {})
  t.equal((await svc.api('GET', '/v1/usage', { key: starter.key })).body.credits_used, expected, 'GET /v1/usage: the ten slow jobs only')
  const ledger = await svc.run(findDocs(CREDIT_USAGE, { org_id: starter.org_id }))
  t.equal(ledger.reduce((sum, doc) => sum + doc.credits_used, 0), expected, 'the credit ledger')
  const listed = (await svc.api('GET', '/v1/jobs?per_page=100', { key: starter.key })).body.items as { credits_charged: number | null }[]
  t.equal(listed.reduce((sum, job) => sum + (job.credits_charged ?? 0), 0), expected, 'the jobs\' credits_charged')
  t.equal(await metricsTotal() - metricsBefore, expected, '/metrics')
})
