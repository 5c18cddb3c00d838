import t from 'tap'
import { startService } from '../helpers/service.js'

const svc = await startService()
t.teardown(() => svc.close())

t.test('retention policy: plan bounds, versions, audit; bad input changes nothing', async (t) => {
  const pro = await svc.createOrg('pro')
  const free = await svc.createOrg('free')
  const ent = await svc.createOrg('enterprise')
  const get = (key: string) => svc.api('GET', '/v1/org/retention-policy', { key })
  const put = (key: string, body: unknown) => svc.api('PUT', '/v1/org/retention-policy', { key, body })
  t.match((await get(pro.key)).body, { retention_days: 30, legal_hold_enabled: false, max_retention_days: 30, policy_version: 0 })
  t.equal((await put(pro.key, { retention_days: 20, legal_hold_enabled: false })).body.error.code, 'retention_not_adjustable')
  t.equal((await put(free.key, { retention_days: 7, legal_hold_enabled: true })).body.error.code, 'legal_holds_not_in_plan')
  t.equal((await put(ent.key, { retention_days: 366, legal_hold_enabled: false })).body.error.code, 'retention_days_above_plan_maximum')
  t.equal((await put(ent.key, { retention_days: 0, legal_hold_enabled: false })).status, 422)
  t.equal((await put(ent.key, { retention_days: 30 })).body.error.code, 'missing_legal_hold_enabled')
  t.equal((await put(ent.key, { retention_days: 30, legal_hold_enabled: false, extra: 1 })).body.error.code, 'unknown_field')
  t.equal((await get(ent.key)).body.policy_version, 0, 'rejected changes recorded nothing')
  t.match((await put(ent.key, { retention_days: 365, legal_hold_enabled: true })).body, { retention_days: 365, legal_hold_enabled: true, policy_version: 1 })
  t.equal((await put(ent.key, { retention_days: 365, legal_hold_enabled: true })).body.policy_version, 1, 'no change, no new version')
  t.equal((await put(ent.key, { retention_days: 100, legal_hold_enabled: true })).body.policy_version, 2)
  const audit = await svc.api('GET', '/v1/audit-log?type=RetentionPolicySet', { key: ent.key })
  t.equal(audit.body.total, 2)
  t.match(audit.body.items[0], { actor: `api_key:${ent.key_id}`, detail: { retention_days: 100, policy_version: 2 } })
  t.equal((await svc.api('GET', '/v1/audit-log?from=yesterday', { key: ent.key })).body.error.code, 'invalid_from')
})

t.test('placing a hold: the plan (403), then the policy (409), then the scope (422); a refused hold creates nothing', async (t) => {
  const free = await svc.createOrg('free')
  const pro = await svc.createOrg('pro')
  const other = await svc.createOrg('pro')
  const place = (key: string, body: Record<string, unknown>) => svc.api('POST', '/v1/org/retention-holds', { key, body: { justification: 'litigation', ...body } })
  const refused = async (answer: Awaited<ReturnType<typeof place>>, status: number, code: string) => {
    t.equal(answer.status, status, `${code}: ${status}`)
    t.equal(answer.body.error?.code, code)
  }
  await refused(await place(free.key, { scope_type: 'job', scope_ref: 'no-such-job' }), 403, 'legal_holds_not_in_plan')
  await refused(await place(pro.key, { scope_type: 'job', scope_ref: 'no-such-job' }), 409, 'legal_holds_disabled')
  t.equal((await svc.api('PUT', '/v1/org/retention-policy', { key: pro.key, body: { retention_days: 30, legal_hold_enabled: true } })).status, 200)
  await refused(await place(pro.key, { scope_type: 'job', scope_ref: 'no-such-job' }), 422, 'invalid_scope_ref')
  await refused(await place(pro.key, { scope_type: 'artifact', scope_ref: 'no-such-artifact' }), 422, 'invalid_scope_ref')
  await refused(await place(pro.key, { scope_type: 'org', scope_ref: other.org_id }), 422, 'invalid_scope_ref')
  t.equal((await svc.api('GET', '/v1/org/retention-holds', { key: pro.key })).body.total, 0, 'nothing was placed')
  const held = await place(pro.key, { scope_type: 'org' })
  t.equal(held.status, 201)
  t.match(held.body, { scope_type: 'org', scope_ref: pro.org_id, status: 'active' })
})
