import t from 'tap'
import type { Test } from 'tap'
import { startService } from '../helpers/service.js'

const svc = await startService({ roles: ['api', 'projector'] })
t.teardown(() => svc.close())

const admin = await svc.createOrg('pro')
const expiry = new Date(Date.now() + 86_400_000).toISOString()
/** A key that may manage keys, and nothing wider than 50 rpm, 100 a day, 2 jobs at once, one day, local addresses. */
const managerAnswer = await svc.api('POST', '/v1/keys', {
  key: admin.key,
  body: { name: 'manager', scopes: ['keys.manage', 'jobs.read'], rate_limit_rpm: 50, daily_quota: 100, max_concurrent_jobs: 2, ip_allowlist: ['127.0.0.0/8'], expires_at: expiry },
})
if (managerAnswer.status !== 201) throw new Error(managerAnswer.text)
const manager = managerAnswer.body
const keyCount = async () => (await svc.api('GET', '/v1/keys', { key: admin.key })).body.items.length

const refused = async (t: Test, body: Record<string, unknown>, field: string) => {
  const answer = await svc.api('POST', '/v1/keys', { key: manager.api_key, body: { name: 'wider', scopes: ['jobs.read'], ...body } })
  t.equal(answer.status, 403, `${field}: ${answer.text}`)
  t.equal(answer.body.error.code, 'key_exceeds_creator')
  t.same(answer.body.error.details.map((d: any) => d.field), [field], `names ${field}`)
}

t.test('a key cannot create a key wider than itself', async (t) => {
  const before = await keyCount()
  await refused(t, { scopes: ['keys.manage', 'jobs.read', 'jobs.create', 'org.manage'] }, 'scopes')
  await refused(t, { rate_limit_rpm: 51 }, 'rate_limit_rpm')
  await refused(t, { daily_quota: 1_000_000 }, 'daily_quota')
  await refused(t, { max_concurrent_jobs: null }, 'max_concurrent_jobs')
  await refused(t, { enforcement_mode: 'observe' }, 'enforcement_mode')
  await refused(t, { expires_at: null }, 'expires_at')
  await refused(t, { expires_at: new Date(Date.now() + 2 * 86_400_000).toISOString() }, 'expires_at')
  await refused(t, { ip_allowlist: [] }, 'ip_allowlist')
  await refused(t, { ip_allowlist: ['0.0.0.0/0'] }, 'ip_allowlist')
  await refused(t, { ip_allowlist: ['127.0.0.1', '192.0.2.1'] }, 'ip_allowlist')
  t.equal(await keyCount(), before, 'no refused request created a key')
})

t.test('omitted fields take the creator limits; narrower ones are kept', async (t) => {
  const inherited = await svc.api('POST', '/v1/keys', { key: manager.api_key, body: { name: 'child', scopes: ['jobs.read'] } })
  t.equal(inherited.status, 201, inherited.text)
  t.match(inherited.body, { scopes: ['jobs.read'], rate_limit_rpm: 50, daily_quota: 100, max_concurrent_jobs: 2, enforcement_mode: 'block', ip_allowlist: ['127.0.0.0/8'], expires_at: expiry })
  const narrower = await svc.api('POST', '/v1/keys', { key: manager.api_key, body: { name: 'narrower', scopes: ['jobs.read'], rate_limit_rpm: 5, ip_allowlist: ['127.0.0.1'], max_concurrent_jobs: 1 } })
  t.equal(narrower.status, 201, narrower.text)
  t.match(narrower.body, { rate_limit_rpm: 5, daily_quota: 100, max_concurrent_jobs: 1, ip_allowlist: ['127.0.0.1'] })
  t.equal((await svc.api('GET', '/v1/jobs', { key: narrower.body.api_key })).status, 200, 'the new key works')
})

t.test('a key cannot revoke a key wider than itself', async (t) => {
  const denied = await svc.api('DELETE', `/v1/keys/${admin.key_id}`, { key: manager.api_key })
  t.equal(denied.status, 403, denied.text)
  t.equal(denied.body.error.code, 'key_exceeds_creator')
  t.ok(denied.body.error.details.some((d: any) => d.field === 'scopes'))
  t.equal((await svc.api('GET', '/v1/keys', { key: admin.key })).status, 200, 'the wider key still works')
  const child = await svc.api('POST', '/v1/keys', { key: manager.api_key, body: { name: 'child', scopes: ['jobs.read'] } })
  const revoked = await svc.api('DELETE', `/v1/keys/${child.body.key_id}`, { key: manager.api_key })
  t.equal(revoked.status, 200, 'a narrower key can be revoked')
  t.ok(revoked.body.revoked_at)
  t.equal((await svc.api('DELETE', `/v1/keys/${manager.key_id}`, { key: admin.key })).status, 200, 'the wider key revokes the narrower one')
})
