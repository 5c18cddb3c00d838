import t from 'tap'
import type { Test } from 'tap'
import { runJobCommand } from '../../commands/jobs.js'
import { setOrgIpAllowlist } from '../../commands/org-settings.js'
import { validateJobSpec } from '../../domain/job/spec.js'
import { startFixtureSite } from '../fixtures/site.js'
import { startService, waitFor } from '../helpers/service.js'

const site = await startFixtureSite()
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`] })
t.teardown(async () => { await svc.close(); await site.close() })

const codesOf = (body: any): string[] => (body?.error?.details ?? []).map((d: any) => d.code)
const page = () => ({ job_type: 'light', target_url: `${site.origin}/page` })
const slow = (ms = 1500) => ({ job_type: 'light', target_url: `${site.origin}/slow?ms=${ms}` })
const newKey = async (admin: string, body: Record<string, unknown>) => {
  const created = await svc.api('POST', '/v1/keys', { key: admin, body: { name: 'k', scopes: ['jobs.create', 'jobs.read'], ...body } })
  if (created.status !== 201) throw new Error(`key creation failed: ${created.text}`)
  return created.body
}
const expect429 = (t: Test, answer: any, code: string) => {
  t.equal(answer.status, 429, `${code}: ${answer.text}`)
  t.equal(answer.body.error.code, code)
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']) t.ok(answer.headers.get(h), `${h} header`)
  t.ok(Number(answer.headers.get('retry-after')) >= 1)
}

t.test('keys: created with the secret shown once, listed without it, revoked to 401', async (t) => {
  const admin = await svc.createOrg('pro')
  const created = await svc.api('POST', '/v1/keys', { key: admin.key, body: { name: 'ci', scopes: ['jobs.read'], rate_limit_rpm: 100 } })
  t.equal(created.status, 201)
  t.match(created.body.api_key, /^sk_/)
  t.equal(created.body.rate_limit_rpm, 100)
  t.equal(created.body.daily_quota, 50000, 'default daily quota')
  t.equal(created.body.enforcement_mode, 'block')
  const listed = await svc.api('GET', '/v1/keys', { key: admin.key })
  t.equal(listed.status, 200)
  t.notMatch(listed.text, created.body.api_key, 'the secret is never listed')
  t.ok(listed.body.items.some((k: any) => k.key_id === created.body.key_id))
  t.equal((await svc.api('GET', '/v1/jobs', { key: created.body.api_key })).status, 200)
  const denied = await svc.api('POST', '/v1/jobs', { key: created.body.api_key, body: page() })
  t.equal(denied.status, 403, 'a key without jobs.create cannot submit')
  t.equal(denied.body.error.code, 'missing_scope')
  const noManage = await svc.api('POST', '/v1/keys', { key: created.body.api_key, body: { name: 'x', scopes: ['jobs.read'] } })
  t.equal(noManage.status, 403)
  const revoked = await svc.api('DELETE', `/v1/keys/${created.body.key_id}`, { key: admin.key })
  t.equal(revoked.status, 200)
  t.ok(revoked.body.revoked_at)
  const after = await svc.api('GET', '/v1/jobs', { key: created.body.api_key })
  t.equal(after.status, 401)
  t.equal(after.body.error.code, 'invalid_api_key')
  const other = await svc.createOrg('pro')
  t.equal((await svc.api('DELETE', `/v1/keys/${admin.key_id}`, { key: other.key })).status, 404, "another organization's key is a 404")
})

t.test('key creation validates every field', async (t) => {
  const admin = await svc.createOrg('pro')
  const bad = await svc.api('POST', '/v1/keys', {
    key: admin.key,
    body: { scopes: ['jobs.fly'], rate_limit_rpm: 0, daily_quota: -1, max_concurrent_jobs: 'x', enforcement_mode: 'warn', ip_allowlist: ['not-an-ip'], expires_at: '2001-01-01T00:00:00Z', extra: 1 },
  })
  t.equal(bad.status, 422)
  t.same(new Set(codesOf(bad.body)), new Set(['missing_name', 'invalid_scopes', 'invalid_rate_limit_rpm', 'invalid_daily_quota', 'invalid_max_concurrent_jobs', 'invalid_enforcement_mode', 'invalid_ip_allowlist', 'invalid_expires_at', 'unknown_field']))
  const listed = await svc.api('GET', '/v1/keys', { key: admin.key })
  t.equal(listed.body.items.length, 1, 'nothing was created')
})

t.test('IP allowlists: key and organization; outside answers 403 ip_not_allowed', async (t) => {
  const admin = await svc.createOrg('pro')
  const elsewhere = await newKey(admin.key, { ip_allowlist: ['10.0.0.0/8'] })
  const local = await newKey(admin.key, { ip_allowlist: ['127.0.0.1'] })
  const blocked = await svc.api('GET', '/v1/jobs', { key: elsewhere.api_key })
  t.equal(blocked.status, 403)
  t.equal(blocked.body.error.code, 'ip_not_allowed')
  t.equal((await svc.api('GET', '/v1/jobs', { key: local.api_key })).status, 200)
  const set = await svc.api('PUT', '/v1/org/ip-allowlist', { key: admin.key, body: { ip_allowlist: ['192.0.2.0/24', '127.0.0.1'] } })
  t.equal(set.status, 200)
  t.same(set.body.ip_allowlist, ['192.0.2.0/24', '127.0.0.1'])
  // A list without the caller is refused over the API (org-allowlist.test.ts); an operator can still set one.
  await svc.run(setOrgIpAllowlist({ org_id: admin.org_id, ip_allowlist: ['192.0.2.0/24'], metadata: { correlation_id: 't', causation_id: null, actor: 'test' } }))
  await waitFor(async () => (await svc.api('GET', '/v1/jobs', { key: local.api_key })).status === 403)
  t.pass('the organization list applies to every key')
  const invalid = await svc.api('PUT', '/v1/org/ip-allowlist', { key: admin.key, body: { ip_allowlist: ['300.1.1.1'] } })
  t.equal(invalid.status, 403, 'the admin key is itself outside the list now')
})

t.test('requests per minute: block answers 429, observe passes and reports', async (t) => {
  const admin = await svc.createOrg('pro')
  const blocking = await newKey(admin.key, { rate_limit_rpm: 3 })
  const observing = await newKey(admin.key, { rate_limit_rpm: 3, enforcement_mode: 'observe' })
  // The window is a calendar minute: start right after a boundary if we are close to the next one.
  if (Date.now() % 60_000 > 55_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 50))
  for (let i = 0; i < 3; i++) t.equal((await svc.api('GET', '/v1/jobs', { key: blocking.api_key })).status, 200)
  expect429(t, await svc.api('GET', '/v1/jobs', { key: blocking.api_key }), 'rate_limit_exceeded')
  for (let i = 0; i < 3; i++) await svc.api('GET', '/v1/jobs', { key: observing.api_key })
  const observed = await svc.api('GET', '/v1/jobs', { key: observing.api_key })
  t.equal(observed.status, 200)
  t.match(observed.headers.get('x-ratelimit-observed'), /rate_limit_exceeded/)
})

t.test('daily quota: block answers 429 and creates no job; observe passes', async (t) => {
  const admin = await svc.createOrg('pro')
  const blocking = await newKey(admin.key, { daily_quota: 2 })
  const observing = await newKey(admin.key, { daily_quota: 1, enforcement_mode: 'observe' })
  for (let i = 0; i < 2; i++) t.equal((await svc.api('POST', '/v1/jobs', { key: blocking.api_key, body: page() })).status, 202)
  expect429(t, await svc.api('POST', '/v1/jobs', { key: blocking.api_key, body: page() }), 'daily_quota_exceeded')
  t.equal((await svc.api('GET', '/v1/jobs', { key: blocking.api_key })).body.total, 2, 'the rejected request created no job')
  t.equal((await svc.api('POST', '/v1/jobs', { key: observing.api_key, body: page() })).status, 202)
  const observed = await svc.api('POST', '/v1/jobs', { key: observing.api_key, body: page() })
  t.equal(observed.status, 202)
  t.match(observed.headers.get('x-ratelimit-observed'), /daily_quota_exceeded/)
})

t.test('concurrent jobs: key cap and plan cap, block and observe', async (t) => {
  const admin = await svc.createOrg('pro')
  const oneAtATime = await newKey(admin.key, { max_concurrent_jobs: 1 })
  t.equal((await svc.api('POST', '/v1/jobs', { key: oneAtATime.api_key, body: slow() })).status, 202)
  expect429(t, await svc.api('POST', '/v1/jobs', { key: oneAtATime.api_key, body: slow() }), 'key_limit_concurrent_jobs')

  const free = await svc.createOrg('free') // plan cap: 2
  for (let i = 0; i < 2; i++) t.equal((await svc.api('POST', '/v1/jobs', { key: free.key, body: slow() })).status, 202)
  expect429(t, await svc.api('POST', '/v1/jobs', { key: free.key, body: slow() }), 'plan_limit_concurrent_jobs')
  const observing = await newKey(free.key, { enforcement_mode: 'observe' })
  const observed = await svc.api('POST', '/v1/jobs', { key: observing.api_key, body: slow(100) })
  t.equal(observed.status, 202)
  t.match(observed.headers.get('x-ratelimit-observed'), /plan_limit_concurrent_jobs/)
})

t.test('50 concurrent submissions against a cap of 10: never more than 10 at once; credits equal the succeeded weights', async (t) => {
  const starter = await svc.createOrg('starter') // plan cap: 10
  // A target of its own, so its load counts this organization's jobs only.
  const target = await startFixtureSite()
  const local = await startService({ allowlist: [`127.0.0.1:${target.port}`], dataDir: svc.dataDir + '-cap' })
  t.teardown(async () => { await local.close(); await target.close() })
  Object.assign(starter, await local.createOrg('starter'))
  const svcCap = local
  const answers = await Promise.all(Array.from({ length: 50 }, () => svcCap.api('POST', '/v1/jobs', { key: starter.key, body: { job_type: 'light', target_url: `${target.origin}/slow?ms=2000` } })))
  const accepted = answers.filter((a) => a.status === 202)
  const rejected = answers.filter((a) => a.status === 429)
  t.equal(accepted.length + rejected.length, 50, 'every answer is 202 or 429')
  // Jobs that finish while the burst is still arriving free their slot, so more than 10 may be accepted overall;
  // what must hold is that no more than 10 are active at once.
  t.ok(accepted.length >= 10, `the cap was filled (accepted ${accepted.length})`)
  t.ok(rejected.length > 0, 'the burst went over the cap')
  t.ok(rejected.every((a) => a.body.error.code === 'plan_limit_concurrent_jobs'))
  const results = await Promise.all(accepted.map((a) => svcCap.waitForResult(starter.key, a.body.job_id)))
  t.ok(target.load.max <= 10, `at most 10 requests at once reached the target (saw ${target.load.max})`)
  t.ok(target.load.max >= 2, 'jobs did run concurrently')
  const succeeded = results.filter((r) => r.body.status === 'succeeded').length
  t.equal(succeeded, accepted.length, JSON.stringify(results.map((r) => [r.body.status, r.body.failure_reason, r.body.failure_message])))
  await waitFor(async () => (await svcCap.api('GET', '/v1/usage', { key: starter.key })).body.credits_used === succeeded)
  const usage = await svcCap.api('GET', '/v1/usage', { key: starter.key })
  t.equal(usage.body.credits_used, succeeded, 'charged exactly the weights of succeeded jobs (light = 1)')
  t.equal(usage.body.jobs_charged, succeeded)
  t.equal((await svcCap.api('GET', '/v1/jobs?per_page=100', { key: starter.key })).body.total, accepted.length, 'rejections created no jobs')
})

t.test('failed jobs cost nothing', async (t) => {
  const org = await svc.createOrg('pro')
  const submitted = await svc.api('POST', '/v1/jobs', { key: org.key, body: { job_type: 'light', target_url: `${site.origin}/status?code=503` } })
  const result = await svc.waitForResult(org.key, submitted.body.job_id)
  t.equal(result.body.status, 'failed')
  const ok = await svc.api('POST', '/v1/jobs', { key: org.key, body: page() })
  await svc.waitForResult(org.key, ok.body.job_id)
  await waitFor(async () => (await svc.api('GET', '/v1/usage', { key: org.key })).body.credits_used === 1)
  t.equal((await svc.api('GET', '/v1/usage', { key: org.key })).body.credits_used, 1)
})

t.test('the audit log records key and settings decisions without secrets', async (t) => {
  const admin = await svc.createOrg('pro')
  const key = await newKey(admin.key, {})
  await svc.api('DELETE', `/v1/keys/${key.key_id}`, { key: admin.key })
  await waitFor(async () => (await svc.api('GET', '/v1/audit-log', { key: admin.key })).body.items.some((e: any) => e.type === 'ApiKeyRevoked'))
  const log = await svc.api('GET', '/v1/audit-log', { key: admin.key })
  t.equal(log.status, 200)
  const types = log.body.items.map((e: any) => e.type)
  t.ok(types.includes('OrgCreated') && types.includes('ApiKeyCreated') && types.includes('ApiKeyRevoked'))
  t.notMatch(log.text, /key_hash/)
  t.notMatch(log.text, key.api_key)
  const revoke = log.body.items.find((e: any) => e.type === 'ApiKeyRevoked')
  t.equal(revoke.actor, `api_key:${admin.key_id}`)
})

t.test('monthly credits: a job that would overdraw the pool answers 429 plan_limit_monthly_credits', async (t) => {
  // No fetcher in this process: jobs are finished by commands, as a fetcher would.
  const local = await startService({ roles: ['api', 'projector'] })
  t.teardown(() => local.close())
  const org = await local.createOrg('free') // 1,000 credits a month
  const checked = validateJobSpec({ job_type: 'stealth', target_url: 'https://example.com/' }, { allowlist: new Set(), isTimeZone: () => true })
  if (!checked.ok) throw new Error('spec')
  const ctx = { metadata: { correlation_id: 't', causation_id: null, actor: 'test' } }
  const now = () => new Date().toISOString()
  for (let i = 0; i < 33; i++) {
    const jobId = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`
    await local.run(runJobCommand({ _tag: 'RequestJob', origin: { _tag: 'api' }, job_id: jobId, org_id: org.org_id, api_key_id: org.key_id, spec: checked.spec, now: now() }, org.org_id, ctx))
    await local.run(runJobCommand({ _tag: 'StartJob', job_id: jobId, worker_id: 'test', now: now() }, org.org_id, ctx))
    await local.run(runJobCommand({ _tag: 'SucceedJob', job_id: jobId, manifest: {}, artifacts: [], now: now() }, org.org_id, ctx))
  }
  await waitFor(async () => (await local.api('GET', '/v1/usage', { key: org.key })).body.credits_used === 990)
  const stealth = await local.api('POST', '/v1/jobs', { key: org.key, body: { job_type: 'stealth', target_url: 'https://example.com/' } })
  expect429(t, stealth, 'plan_limit_monthly_credits')
  t.equal(Number(stealth.headers.get('x-ratelimit-remaining')), 10)
  const light = await local.api('POST', '/v1/jobs', { key: org.key, body: { job_type: 'light', target_url: 'https://example.com/' } })
  t.equal(light.status, 202, 'a job that still fits is admitted')
})
