import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import { setOrgIpAllowlist } from '../../commands/org-settings.js'
import { startService, waitFor } from '../helpers/service.js'

const svc = await startService({ roles: ['api', 'projector'] })
t.teardown(() => svc.close())
const metadata = { correlation_id: 'test', causation_id: null, actor: 'test' }

t.test('an organization IP allowlist that excludes the caller is refused and changes nothing', async (t) => {
  const org = await svc.createOrg('pro')
  const excluding = await svc.api('PUT', '/v1/org/ip-allowlist', { key: org.key, body: { ip_allowlist: ['192.0.2.0/24'] } })
  t.equal(excluding.status, 422, excluding.text)
  t.equal(excluding.body.error.details[0].code, 'allowlist_excludes_caller')
  t.equal(excluding.body.error.details[0].field, 'ip_allowlist')
  const still = await svc.api('GET', '/v1/org', { key: org.key })
  t.equal(still.status, 200, 'the organization is still reachable')
  t.same(still.body.ip_allowlist, [], 'the list did not change')
  const including = await svc.api('PUT', '/v1/org/ip-allowlist', { key: org.key, body: { ip_allowlist: ['192.0.2.0/24', '127.0.0.0/8'] } })
  t.equal(including.status, 200, including.text)
  t.same(including.body.ip_allowlist, ['192.0.2.0/24', '127.0.0.0/8'])
  const empty = await svc.api('PUT', '/v1/org/ip-allowlist', { key: org.key, body: { ip_allowlist: [] } })
  t.equal(empty.status, 200, 'an empty list (every address) always includes the caller')
})

t.test('an operator unlocks a locked-out organization with the CLI', async (t) => {
  const org = await svc.createOrg('pro')
  // A lock-out as it could happen before this check, or after the client's address changed.
  await svc.run(setOrgIpAllowlist({ org_id: org.org_id, ip_allowlist: ['192.0.2.0/24'], metadata }))
  await waitFor(async () => (await svc.api('GET', '/v1/org', { key: org.key })).status === 403)
  t.equal((await svc.api('GET', '/v1/org', { key: org.key })).body.error.code, 'ip_not_allowed', 'locked out')
  // The documented command, as an operator runs it on the service's data folder.
  const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'cli', '--', 'org', 'ip-allowlist', 'clear', '--org', org.org_id, '--json'], {
    env: { ...process.env, DATA_DIR: svc.dataDir, LOG_LEVEL: 'silent' }, timeout: 180_000,
  })
  t.same(JSON.parse(stdout.trim().split('\n').pop()!), { org_id: org.org_id, ip_allowlist: [] })
  await waitFor(async () => (await svc.api('GET', '/v1/org', { key: org.key })).status === 200, 60_000)
  t.same((await svc.api('GET', '/v1/org', { key: org.key })).body.ip_allowlist, [], 'reachable again, from every address')
})
