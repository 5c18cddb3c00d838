import t from 'tap'
import { Effect } from 'effect'
import { revokeApiKey } from '../../commands/orgs.js'
import { STREAMS } from '../../domain/streams.js'
import { EventStore } from '../../ports/event-store.js'
import { startFixtureSite } from '../fixtures/site.js'
import { startService, waitFor } from '../helpers/service.js'

const site = await startFixtureSite()
const other = await startFixtureSite()
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`] })
t.teardown(async () => { await svc.close(); await site.close(); await other.close() })
const { key, org_id, key_id } = await svc.createOrg('pro')

const runJob = async (body: Record<string, unknown>, apiKey = key) => {
  const submitted = await svc.api('POST', '/v1/jobs', { key: apiKey, body: { job_type: 'light', ...body } })
  if (submitted.status !== 202) throw new Error(`submission failed: ${submitted.status} ${submitted.text}`)
  return (await svc.waitForResult(apiKey, submitted.body.job_id)).body
}

t.test('redirects are followed by hand and recorded; max_redirects is enforced', async (t) => {
  const ok = await runJob({ target_url: `${site.origin}/chain?n=3` })
  t.equal(ok.status, 'succeeded')
  t.equal(ok.manifest.redirects.length, 3)
  t.match(ok.manifest.final_url, /\/chain\?n=0$/)
  const tooMany = await runJob({ target_url: `${site.origin}/chain?n=3`, max_redirects: 2 })
  t.equal(tooMany.status, 'failed')
  t.equal(tooMany.failure_reason, 'too_many_redirects')
  const notFollowed = await runJob({ target_url: `${site.origin}/chain?n=1`, follow_redirects: false })
  t.equal(notFollowed.status, 'succeeded')
  t.equal(notFollowed.manifest.http_status, 302)
})

t.test('a redirect to a forbidden address fails the job without reaching it', async (t) => {
  const before = other.requests.length
  const toLoopback = await runJob({ target_url: `${site.origin}/redirect?to=${encodeURIComponent(`${other.origin}/page`)}` })
  t.equal(toLoopback.status, 'failed')
  t.equal(toLoopback.failure_reason, 'unsafe_redirect')
  const toMetadata = await runJob({ target_url: `${site.origin}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/')}` })
  t.equal(toMetadata.failure_reason, 'unsafe_redirect')
  t.equal(other.requests.length, before, 'the non-allowlisted server saw no request')
})

t.test('retry_policy retries listed statuses up to max_attempts', async (t) => {
  const recovered = await runJob({ target_url: `${site.origin}/flaky?key=a&fail=2`, retry_policy: { max_attempts: 3, retry_on_status: [503] } })
  t.equal(recovered.status, 'succeeded')
  t.equal(recovered.manifest.attempts, 3)
  t.equal(site.hits.get('/flaky?a'), 3)
  const exhausted = await runJob({ target_url: `${site.origin}/flaky?key=b&fail=5`, retry_policy: { max_attempts: 2, retry_on_status: [503] } })
  t.equal(exhausted.status, 'failed')
  t.equal(exhausted.failure_reason, 'upstream_error')
  t.equal(exhausted.manifest.http_status, 503)
  t.equal(site.hits.get('/flaky?b'), 2)
  const notRetriedMethod = await runJob({ target_url: `${site.origin}/flaky?key=c&fail=1`, method: 'POST', body: 'x', retry_policy: { max_attempts: 3, retry_on_status: [503], retry_methods: ['GET'] } })
  t.equal(notRetriedMethod.status, 'failed')
  t.equal(site.hits.get('/flaky?c'), 1)
})

t.test('timeout_ms fails a slow target with failure_reason timeout', async (t) => {
  const slow = await runJob({ target_url: `${site.origin}/slow?ms=5000`, timeout_ms: 1000 })
  t.equal(slow.status, 'failed')
  t.equal(slow.failure_reason, 'timeout')
})

t.test('method, body, headers and user_agent reach the target; response body artifact on request', async (t) => {
  const echoed = await runJob({
    target_url: `${site.origin}/echo`, method: 'POST', body: '{"q":1}', headers: { 'x-custom': 'yes', 'content-type': 'application/json' },
    user_agent: 'SwTest/1.0', artifact_options: { include_html: false, include_response_body: true },
  })
  t.equal(echoed.status, 'succeeded')
  t.same(echoed.artifacts.map((a: any) => a.artifact_type), ['response_body'])
  const link = await svc.api('GET', `/v1/jobs/${echoed.job_id}/artifacts/${echoed.artifacts[0].artifact_id}`, { key })
  const seen = await (await fetch(link.body.url)).json() as any
  t.equal(seen.method, 'POST')
  t.equal(seen.body, '{"q":1}')
  t.equal(seen.headers['x-custom'], 'yes')
  t.equal(seen.headers['user-agent'], 'SwTest/1.0')
})

t.test('requests carry browser-consistent headers by default (impersonation)', async (t) => {
  const job = await runJob({ target_url: `${site.origin}/echo`, artifact_options: { include_response_body: true } })
  const link = await svc.api('GET', `/v1/jobs/${job.job_id}/artifacts/${job.artifacts.find((a: any) => a.artifact_type === 'response_body').artifact_id}`, { key })
  const seen = await (await fetch(link.body.url)).json() as any
  t.match(seen.headers['user-agent'], /Chrome\//)
  t.ok(seen.headers['accept'], 'sends an Accept header like a browser')
})

t.test('jobs list filters by tag and paginates; another organization sees none of them', async (t) => {
  for (let i = 0; i < 3; i++) await runJob({ target_url: `${site.origin}/page`, tags: ['batch-x'] })
  const page1 = await svc.api('GET', '/v1/jobs?tag=batch-x&per_page=2', { key })
  t.equal(page1.status, 200)
  t.equal(page1.body.total, 3)
  t.equal(page1.body.items.length, 2)
  t.equal(page1.body.page_count, 2)
  const page2 = await svc.api('GET', '/v1/jobs?tag=batch-x&per_page=2&page=2', { key })
  t.equal(page2.body.items.length, 1)
  t.ok(page1.body.items.every((j: any) => j.tags.includes('batch-x')))

  const intruder = await svc.createOrg('pro')
  const theirs = await svc.api('GET', '/v1/jobs?tag=batch-x', { key: intruder.key })
  t.equal(theirs.body.total, 0)
  const jobId = page1.body.items[0].job_id
  const artifactId = page1.body.items[0].artifacts[0].artifact_id
  for (const path of [`/v1/jobs/${jobId}`, `/v1/jobs/${jobId}/result`, `/v1/jobs/${jobId}/artifacts/${artifactId}`]) {
    const answer = await svc.api('GET', path, { key: intruder.key })
    t.equal(answer.status, 404, path)
    t.equal(answer.body.error.code, 'job_not_found')
  }
})

t.test('idempotency: 20 concurrent submissions with one token make exactly one job', async (t) => {
  const body = { job_type: 'light', target_url: `${site.origin}/page`, idempotency_token: 'same-token-1' }
  const answers = await Promise.all(Array.from({ length: 20 }, () => svc.api('POST', '/v1/jobs', { key, body })))
  t.ok(answers.every((a) => a.status === 202 || a.status === 200), answers.map((a) => a.status).join(','))
  t.equal(answers.filter((a) => a.status === 202).length, 1, 'exactly one submission created the job')
  t.equal(new Set(answers.map((a) => a.body.job_id)).size, 1)
  const events = await svc.run(Effect.flatMap(EventStore, (s) => s.readStream(STREAMS.job.stream(answers[0]!.body.job_id))))
  t.equal(events.filter((e) => e.type === 'JobRequested').length, 1)
  const again = await svc.api('POST', '/v1/jobs', { key, body: { ...body, target_url: `${site.origin}/json` } })
  t.equal(again.status, 200)
  t.equal(again.headers.get('idempotent-replayed'), 'true')
  t.equal(again.body.job_id, answers[0]!.body.job_id)
  t.equal(again.body.target_url, `${site.origin}/page`, 'the original job is returned')
  const otherOrg = await svc.createOrg('pro')
  const theirs = await svc.api('POST', '/v1/jobs', { key: otherOrg.key, body })
  t.equal(theirs.status, 202, 'tokens are scoped to the organization')
  t.not(theirs.body.job_id, answers[0]!.body.job_id)
})

t.test('authentication: 401 for missing, invalid and revoked keys; 403 for a missing scope', async (t) => {
  const missing = await svc.api('GET', '/v1/jobs')
  t.equal(missing.status, 401)
  t.equal(missing.body.error.code, 'missing_api_key')
  const invalid = await svc.api('GET', '/v1/jobs', { key: 'sk_not-a-real-key' })
  t.equal(invalid.status, 401)
  t.equal(invalid.body.error.code, 'invalid_api_key')
  const readOnly = await svc.createOrg('pro', ['jobs.read'])
  const denied = await svc.api('POST', '/v1/jobs', { key: readOnly.key, body: { job_type: 'light', target_url: `${site.origin}/page` } })
  t.equal(denied.status, 403)
  t.equal(denied.body.error.code, 'missing_scope')
  const listed = await svc.api('GET', '/v1/jobs', { key: readOnly.key })
  t.equal(listed.status, 200)
  const revocable = await svc.createOrg('pro')
  await svc.run(revokeApiKey({ org_id: revocable.org_id, key_id: revocable.key_id, metadata: { correlation_id: 't', causation_id: null, actor: 'test' } }))
  await waitFor(async () => (await svc.api('GET', '/v1/jobs', { key: revocable.key })).status === 401)
  t.pass('revoked key answers 401')
  void org_id; void key_id
})

t.test('result_not_ready while the job runs', async (t) => {
  const submitted = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `${site.origin}/slow?ms=1500` } })
  const early = await svc.api('GET', `/v1/jobs/${submitted.body.job_id}/result`, { key })
  t.equal(early.status, 409)
  t.equal(early.body.error.code, 'result_not_ready')
  const done = await svc.waitForResult(key, submitted.body.job_id)
  t.equal(done.status, 200)
})

t.test('a host that does not resolve fails with network_error, not an HTTP status', async (t) => {
  const job = await runJob({ target_url: `http://no-such-host.invalid:${other.port}/page` })
  t.equal(job.status, 'failed')
  t.equal(job.failure_reason, 'network_error')
  t.equal(job.manifest.http_status, null, 'the gateway\'s answer is not the target\'s status')
})
