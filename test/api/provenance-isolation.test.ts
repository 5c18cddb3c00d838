import t from 'tap'
import { startFixtureSite } from '../fixtures/site.js'
import { signUp } from '../helpers/account.js'
import { startService, waitFor } from '../helpers/service.js'

/**
 * Where a job came from is recorded by the command that created it: another organization's forged markers (the
 * service's old tag and token prefixes, their case and whitespace variants, another organization's ids) reach
 * nothing but the submitter's own plain job, billed as one.
 */
const site = await startFixtureSite()
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`], env: { LOGIN_ATTEMPTS_PER_MINUTE: '1000' } })
t.teardown(async () => { await svc.close(); await site.close() })
const victim = await svc.createOrg('pro')
const attacker = await svc.createOrg('pro')

const submit = async (key: string, body: Record<string, unknown>) => {
  const answer = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', ...body } })
  if (answer.status !== 202) throw new Error(`POST /v1/jobs answered ${answer.status}: ${JSON.stringify(answer.body)}`)
  return answer.body.job_id as string
}
const finished = async (key: string, jobId: string) => (await svc.waitForResult(key, jobId)).body
const variants = (marker: string) => [marker, marker.toUpperCase(), ` ${marker}`, `${marker} `, marker.replace(':', ' :')]

t.test('a v1 monitor run is completed only by its own job, never by another organization\'s job naming it', async (t) => {
  const created = await svc.api('POST', '/v1/monitors', {
    key: victim.key, body: { name: 'slow page', cron: '0 3 * * *', timezone: 'UTC', job_type: 'light', target_url: `${site.origin}/slow?ms=1500` },
  })
  t.equal(created.status, 201, JSON.stringify(created.body))
  const monitorId = created.body.id as string
  const fired = await svc.api('POST', `/v1/monitors/${monitorId}/runs`, { key: victim.key })
  const runId = fired.body.run_id as string
  t.ok(runId, 'a run is in flight')
  // The attacker's jobs, answered 403 at once, name the run while its own job is still fetching the slow page.
  const forged = await Promise.all(variants(`monitor-run:${monitorId}:${runId}`).map((token) =>
    submit(attacker.key, { target_url: `${site.origin}/status?code=403`, idempotency_token: token })))
  for (const jobId of forged) await finished(attacker.key, jobId)
  await waitFor(async () => {
    const runs = (await svc.api('GET', `/v1/monitors/${monitorId}/runs`, { key: victim.key })).body.items as { status: string }[]
    return runs.some((run) => run.status === 'delivered' || run.status === 'blocked')
  }, 20_000)
  const run = ((await svc.api('GET', `/v1/monitors/${monitorId}/runs`, { key: victim.key })).body.items as { run_id: string; status: string; job_id: string }[])
    .find((r) => r.run_id === runId)!
  t.equal(run.status, 'delivered', 'the run is the victim\'s page, delivered')
  t.notOk(forged.includes(run.job_id), 'the run\'s job is its own, none of the attacker\'s')
  const monitor = (await svc.api('GET', `/v1/monitors/${monitorId}`, { key: victim.key })).body
  t.equal(monitor.status, 'active', 'five blocked forgeries do not pause the victim\'s monitor')
  const echoed = (await svc.api('GET', `/v1/jobs/${forged[0]}`, { key: attacker.key })).body
  t.equal(echoed.idempotency_token, `monitor-run:${monitorId}:${runId}`, 'the customer\'s token is stored and returned exactly as given')
})

t.test('a tag naming another organization\'s user makes no scrape of theirs', async (t) => {
  const user = await signUp(svc)
  const forged = await Promise.all(variants(`scrape-by:${user.userId}`).map((tag) => submit(attacker.key, { target_url: `${site.origin}/page`, tags: [tag] })))
  for (const jobId of forged) await finished(attacker.key, jobId)
  const listed = (await svc.api('GET', '/scrapes', { headers: user.bearer })).body
  t.equal(listed.total, 0, 'the user\'s scrapes list is empty')
  for (const jobId of forged) t.equal((await svc.api('GET', `/scrapes/${jobId}`, { headers: user.bearer })).status, 404, 'the forged job is no scrape of theirs')
  const tags = (await svc.api('GET', `/v1/jobs/${forged[0]}`, { key: attacker.key })).body.tags
  t.same(tags, [`scrape-by:${user.userId}`], 'tags are stored and returned exactly as given')
})

t.test('a job naming a monitor run is billed as the plain API job it is', async (t) => {
  const before = (await svc.api('GET', '/v1/usage', { key: attacker.key })).body.credits_used as number
  const jobIds = await Promise.all(['monitor-run:m-1:r-1', 'MONITOR-RUN:m-1:r-2'].map((token) =>
    submit(attacker.key, { target_url: `${site.origin}/status?code=404`, idempotency_token: token })))
  for (const jobId of jobIds) t.equal((await finished(attacker.key, jobId)).status, 'succeeded', 'a page answered 404 is stored')
  await waitFor(async () => (await svc.api('GET', '/v1/usage', { key: attacker.key })).body.credits_used === before + 2, 10_000).catch(() => {})
  t.equal((await svc.api('GET', '/v1/usage', { key: attacker.key })).body.credits_used, before + 2, 'each stored page costs its light weight')
})

t.test('a tag naming another organization\'s content monitor starts or finishes none of its runs', async (t) => {
  const user = await signUp(svc)
  const created = await svc.api('POST', '/content-monitors', {
    headers: user.bearer, body: { url: `${site.origin}/page`, backend: 'httpx', frequencyMinutes: 60, rule: { type: 'any_change', config: {} } },
  })
  t.equal(created.status, 201, JSON.stringify(created.body))
  const monitorId = created.body.id as string
  const runsOf = async () => (await svc.api('GET', `/content-monitors/${monitorId}/runs`, { headers: user.bearer })).body.runs as { id: string; status: string }[]
  const before = await runsOf()
  const forged = await Promise.all(variants(`content-monitor:${monitorId}`).map((tag) => submit(attacker.key, { target_url: `${site.origin}/page`, tags: [tag] })))
  for (const jobId of forged) await finished(attacker.key, jobId)
  const after = await runsOf()
  t.same(after, before, 'the monitor\'s runs are unchanged')
  t.notOk(after.some((run) => forged.includes(run.id)), 'no forged job is one of its runs')
})
