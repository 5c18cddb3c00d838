import t from 'tap'
import { startFixtureSite } from '../fixtures/site.js'
import { startService, waitFor } from '../helpers/service.js'
import { answerWith, startReceiver, verifyWithStandardWebhooks } from '../helpers/webhook-receiver.js'

const site = await startFixtureSite()
const receivers = {
  main: await startReceiver(),
  flaky: await startReceiver(),
  gone: await startReceiver(answerWith(410)),
  accepted: await startReceiver(answerWith(202)),
  slow: await startReceiver(),
}
// Short retry ladder and answer deadline: this file checks outcomes; the ladder itself is checked with a manual clock.
const svc = await startService({
  allowlist: [`127.0.0.1:${site.port}`, ...Object.values(receivers).map((r) => r.allowlistEntry)],
  env: { WEBHOOK_RETRY_SCHEDULE: '1,1,1', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_POLL_MS: '100' },
})
t.teardown(async () => {
  await svc.close()
  await site.close()
  await Promise.all(Object.values(receivers).map((r) => r.close()))
})
const { key } = await svc.createOrg('pro')
const other = await svc.createOrg('pro')

const createEndpoint = async (url: string, enabled_events: string[] = ['job.completed', 'artifact.ready']) => {
  const created = await svc.api('POST', '/v1/webhook-endpoints', { key, body: { url, enabled_events, description: 'test' } })
  if (created.status !== 201) throw new Error(`endpoint not created: ${created.text}`)
  return created.body as { endpoint_id: string; secret: string }
}
const deliveriesOf = async (endpointId: string) => (await svc.api('GET', `/v1/webhook-endpoints/${endpointId}/deliveries`, { key })).body.items as any[]
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

t.test('creation answers the secret once; the URL must pass the SSRF rules', async (t) => {
  const created = await svc.api('POST', '/v1/webhook-endpoints', { key, body: { url: receivers.main.url, enabled_events: ['job.completed'] } })
  t.equal(created.status, 201)
  t.match(created.body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
  t.equal(Buffer.from(created.body.secret.slice(6), 'base64').length, 32)
  const got = await svc.api('GET', `/v1/webhook-endpoints/${created.body.endpoint_id}`, { key })
  t.equal(got.status, 200)
  t.notOk('secret' in got.body, 'never shown again')
  t.notOk(JSON.stringify((await svc.api('GET', '/v1/webhook-endpoints', { key })).body).includes(created.body.secret))
  t.notOk(JSON.stringify((await svc.api('GET', '/v1/audit-log', { key })).body).includes(created.body.secret.slice(6)), 'not in the audit log')

  const refused = async (body: unknown, status: number, code: string) => {
    const answer = await svc.api('POST', '/v1/webhook-endpoints', { key, body })
    t.equal(answer.status, status, `${JSON.stringify(body)} → ${status}`)
    t.equal(answer.body.error?.code, code)
  }
  await refused({ url: 'http://127.0.0.1:9/hooks', enabled_events: ['job.completed'] }, 422, 'unsafe_url')
  await refused({ url: 'http://localhost/hooks', enabled_events: ['job.completed'] }, 422, 'unsafe_url')
  await refused({ url: 'http://169.254.169.254/latest', enabled_events: ['job.completed'] }, 422, 'unsafe_url')
  await refused({ url: 'ftp://example.com/', enabled_events: ['job.completed'] }, 422, 'invalid_url')
  await refused({ url: receivers.main.url, enabled_events: ['nope'] }, 422, 'invalid_enabled_events')
  await refused({ url: receivers.main.url, enabled_events: [] }, 422, 'invalid_enabled_events')
  await refused({ enabled_events: ['job.completed'] }, 400, 'missing_url')
  await refused({ url: receivers.main.url, enabled_events: ['job.completed'], extra: 1 }, 422, 'unknown_field')

  const foreign = await svc.api('GET', `/v1/webhook-endpoints/${created.body.endpoint_id}`, { key: other.key })
  t.equal(foreign.status, 404, "another organization's endpoint is not found")
  t.equal(foreign.body.error.code, 'webhook_endpoint_not_found')
  t.equal((await svc.api('PATCH', `/v1/webhook-endpoints/${created.body.endpoint_id}`, { key: other.key, body: { enabled: false } })).status, 404)
  t.equal((await svc.api('DELETE', `/v1/webhook-endpoints/${created.body.endpoint_id}`, { key: other.key })).status, 404)
  t.equal((await svc.api('DELETE', `/v1/webhook-endpoints/${created.body.endpoint_id}`, { key })).status, 200)
  t.equal((await svc.api('GET', `/v1/webhook-endpoints/${created.body.endpoint_id}`, { key })).status, 404, 'deleted')
})

t.test('a finished job is delivered signed (verified by standardwebhooks), with artifact.ready events', async (t) => {
  const endpoint = await createEndpoint(receivers.main.url)
  const submitted = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `${site.origin}/page`, tags: ['hooked'] } })
  t.equal(submitted.status, 202)
  const jobId = submitted.body.job_id
  const mine = () => receivers.main.received.filter((r) => r.event.data.job_id === jobId)
  await waitFor(() => mine().some((r) => r.event.type === 'job.completed') && mine().some((r) => r.event.type === 'artifact.ready'), 30_000)
  const completed = mine().find((r) => r.event.type === 'job.completed')!
  t.same(verifyWithStandardWebhooks(endpoint.secret, completed), completed.event, 'the reference library verifies the signature')
  t.throws(() => verifyWithStandardWebhooks(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, completed), 'another secret does not verify')
  t.equal(completed.headers['webhook-id'], completed.event.event_id, 'Webhook-Id is the event_id')
  t.match(completed.event, { type: 'job.completed', data: { job_id: jobId, status: 'succeeded', failure_reason: null, tags: ['hooked'], job_type: 'light' } })
  t.ok(Date.parse(completed.event.created_at))
  const ready = mine().filter((r) => r.event.type === 'artifact.ready')
  t.ok(ready.length >= 1)
  t.ok(ready.every((r) => verifyWithStandardWebhooks(endpoint.secret, r)))
  t.equal(new Set(ready.map((r) => r.event.event_id)).size, ready.length, 'one event id per artifact')

  const failed = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `${site.origin}/status?code=500` } })
  await waitFor(() => receivers.main.received.some((r) => r.event.data.job_id === failed.body.job_id && r.event.type === 'job.completed'), 30_000)
  const failure = receivers.main.received.find((r) => r.event.data.job_id === failed.body.job_id && r.event.type === 'job.completed')!
  t.equal(failure.event.data.status, 'failed', 'failed jobs are job.completed too')
  t.type(failure.event.data.failure_reason, 'string')
  t.ok(failure.event.data.failure_reason.length > 0)
})

t.test('500 twice then 200: the same event_id three times, then nothing', async (t) => {
  const endpoint = await createEndpoint(receivers.flaky.url, ['job.completed'])
  receivers.flaky.answerWith((n, _r, res) => answerWith(n < 2 ? 500 : 200)(n, _r, res))
  const ping = await svc.api('POST', `/v1/webhook-endpoints/${endpoint.endpoint_id}/test`, { key })
  t.equal(ping.status, 202)
  await waitFor(() => receivers.flaky.received.length >= 3, 20_000)
  await sleep(3_000)
  t.equal(receivers.flaky.received.length, 3, 'nothing after the success')
  const ids = new Set(receivers.flaky.received.map((r) => r.event.event_id))
  t.equal(ids.size, 1, 'one event_id on every attempt')
  t.equal(receivers.flaky.received[0]!.event.type, 'ping')
  t.equal(receivers.flaky.received[2]!.body, receivers.flaky.received[0]!.body, 'the same bytes each time')
  for (const r of receivers.flaky.received) verifyWithStandardWebhooks(endpoint.secret, r)
  await waitFor(async () => (await deliveriesOf(endpoint.endpoint_id))[0]?.status === 'succeeded')
  const [delivery] = await deliveriesOf(endpoint.endpoint_id)
  t.same(delivery.attempts.map((a: any) => [a.status_code, a.outcome]), [[500, 'retrying'], [500, 'retrying'], [200, 'succeeded']])
  t.equal(delivery.attempts[0].response_excerpt, 'answer 500')
  t.equal(delivery.attempts[0].error, 'receiver answered 500')
  t.type(delivery.attempts[0].latency_ms, 'number')

  // Replay sends the same event again.
  const replayed = await svc.api('POST', `/v1/webhook-endpoints/${endpoint.endpoint_id}/deliveries/${delivery.delivery_id}/replay`, { key })
  t.equal(replayed.status, 202)
  await waitFor(() => receivers.flaky.received.length === 4, 10_000)
  t.equal(receivers.flaky.received[3]!.event.event_id, delivery.event_id, 'a replay keeps the event_id')
  t.equal((await svc.api('POST', `/v1/webhook-endpoints/${endpoint.endpoint_id}/deliveries/nope/replay`, { key })).status, 404)
})

t.test('202 counts as success', async (t) => {
  const endpoint = await createEndpoint(receivers.accepted.url)
  await svc.api('POST', `/v1/webhook-endpoints/${endpoint.endpoint_id}/test`, { key })
  await waitFor(() => receivers.accepted.received.length >= 1)
  await sleep(2_500)
  t.equal(receivers.accepted.received.length, 1, 'not retried')
  const [delivery] = await deliveriesOf(endpoint.endpoint_id)
  t.equal(delivery.status, 'succeeded')
  t.same(delivery.attempts.map((a: any) => a.status_code), [202])
})

t.test('410 disables the endpoint, says so and leaves an audit entry', async (t) => {
  const endpoint = await createEndpoint(receivers.gone.url)
  await svc.api('POST', `/v1/webhook-endpoints/${endpoint.endpoint_id}/test`, { key })
  await waitFor(async () => (await svc.api('GET', `/v1/webhook-endpoints/${endpoint.endpoint_id}`, { key })).body.enabled === false, 10_000)
  const got = await svc.api('GET', `/v1/webhook-endpoints/${endpoint.endpoint_id}`, { key })
  t.equal(got.body.disabled_reason, 'gone')
  t.match(got.body.disabled_message, /410/)
  await sleep(2_500)
  t.equal(receivers.gone.received.length, 1, 'not retried after 410')
  const [delivery] = await deliveriesOf(endpoint.endpoint_id)
  t.equal(delivery.status, 'failed')
  t.equal(delivery.attempts[0].outcome, 'gone')
  await waitFor(async () => (await svc.api('GET', '/v1/audit-log', { key })).body.items.some((e: any) => e.type === 'WebhookEndpointDisabled'))
  const entry = (await svc.api('GET', '/v1/audit-log', { key })).body.items.find((e: any) => e.type === 'WebhookEndpointDisabled')
  t.match(entry, { actor: 'webhooks', detail: { endpoint_id: endpoint.endpoint_id, reason: 'gone' } })
  // Enabled again by its organization, it is sent events once more.
  const enabled = await svc.api('PATCH', `/v1/webhook-endpoints/${endpoint.endpoint_id}`, { key, body: { enabled: true } })
  t.equal(enabled.status, 200)
  t.equal(enabled.body.enabled, true)
  t.equal(enabled.body.disabled_reason, null)
})

t.test('a receiver slower than the deadline has failed the attempt', async (t) => {
  const endpoint = await createEndpoint(receivers.slow.url)
  receivers.slow.answerWith(async (n, r, res) => {
    if (n === 0) await sleep(2_000)
    answerWith(200)(n, r, res)
  })
  await svc.api('POST', `/v1/webhook-endpoints/${endpoint.endpoint_id}/test`, { key })
  await waitFor(async () => (await deliveriesOf(endpoint.endpoint_id))[0]?.status === 'succeeded', 15_000)
  const [delivery] = await deliveriesOf(endpoint.endpoint_id)
  t.equal(delivery.attempts.length, 2)
  t.equal(delivery.attempts[0].status_code, null)
  t.match(delivery.attempts[0].error, /^timeout/)
  t.equal(delivery.attempts[0].outcome, 'retrying')
  t.equal(delivery.attempts[1].status_code, 200)
})

t.test('after a rotation both secrets sign for 24 hours', async (t) => {
  const endpoint = await createEndpoint(receivers.main.url)
  const rotated = await svc.api('POST', `/v1/webhook-endpoints/${endpoint.endpoint_id}/rotate-secret`, { key })
  t.equal(rotated.status, 200)
  t.match(rotated.body.secret, /^whsec_/)
  t.not(rotated.body.secret, endpoint.secret)
  const before = receivers.main.received.length
  await svc.api('POST', `/v1/webhook-endpoints/${endpoint.endpoint_id}/test`, { key })
  await waitFor(() => receivers.main.received.slice(before).some((r) => r.event.type === 'ping' && r.event.data.endpoint_id === endpoint.endpoint_id))
  const ping = receivers.main.received.slice(before).find((r) => r.event.type === 'ping' && r.event.data.endpoint_id === endpoint.endpoint_id)!
  t.equal(String(ping.headers['webhook-signature']).split(' ').length, 2, 'two signatures, space-separated')
  t.ok(verifyWithStandardWebhooks(rotated.body.secret, ping), 'the new secret verifies')
  t.ok(verifyWithStandardWebhooks(endpoint.secret, ping), 'the old secret still verifies')
})
