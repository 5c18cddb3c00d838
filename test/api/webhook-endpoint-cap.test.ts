import t from 'tap'
import { MAX_WEBHOOK_ENDPOINTS_PER_ORG } from '../../domain/webhook/endpoint-quota.js'
import { startService } from '../helpers/service.js'
import { startReceiver } from '../helpers/webhook-receiver.js'

const receiver = await startReceiver()
const svc = await startService({ allowlist: [receiver.allowlistEntry] })
t.teardown(async () => { await svc.close(); await receiver.close() })

t.test(`an organization holds at most ${MAX_WEBHOOK_ENDPOINTS_PER_ORG} webhook endpoints; one more is 422 and creates nothing`, async (t) => {
  const { key } = await svc.createOrg('enterprise')
  const other = await svc.createOrg('pro')
  const create = (apiKey: string, i: number) => svc.api('POST', '/v1/webhook-endpoints', { key: apiKey, body: { url: `${receiver.url}?n=${i}`, enabled_events: ['job.completed'] } })
  // Created side by side: the places are claimed with the expected revision, so the burst cannot overshoot.
  const answers = await Promise.all(Array.from({ length: MAX_WEBHOOK_ENDPOINTS_PER_ORG + 3 }, (_, i) => create(key, i)))
  t.equal(answers.filter((a) => a.status === 201).length, MAX_WEBHOOK_ENDPOINTS_PER_ORG, 'exactly the cap was created')
  const refused = answers.filter((a) => a.status !== 201)
  t.equal(refused.length, 3)
  t.ok(refused.every((a) => a.status === 422 && a.body.error.code === 'webhook_endpoint_limit_reached'), 'the others answered 422 webhook_endpoint_limit_reached')
  t.match(refused[0]!.body.error, { message: /at most 20 webhook endpoints/, details: [{ field: 'url', code: 'webhook_endpoint_limit_reached' }] }, 'the error body names the cap')
  const listed = await svc.api('GET', '/v1/webhook-endpoints', { key })
  t.equal(listed.body.items.length, MAX_WEBHOOK_ENDPOINTS_PER_ORG, 'nothing more was created')

  t.equal((await create(other.key, 0)).status, 201, 'another organization is not affected')
  const deleted = await svc.api('DELETE', `/v1/webhook-endpoints/${listed.body.items[0].endpoint_id}`, { key })
  t.equal(deleted.status, 200)
  t.equal((await create(key, 99)).status, 201, 'deleting one frees its place')
  t.equal((await create(key, 100)).status, 422, 'and the cap holds again')
})
