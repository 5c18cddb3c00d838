import t from 'tap'
import { createApiKey } from '../../commands/orgs.js'
import { registerUser } from '../../commands/users.js'
import { DEFAULT_RETRY_LADDER, JITTER_SHARE, RETRY_WINDOW_MS } from '../../domain/webhook/retry-ladder.js'
import { makeManualClock } from '../../infra/clock/manual.js'
import { outboxMessages } from '../helpers/mail.js'
import { startService, waitFor } from '../helpers/service.js'
import { answerWith, startReceiver } from '../helpers/webhook-receiver.js'

// Days of retries in seconds: the service reads a manual clock, and the test moves it to each recorded next attempt.
const clock = makeManualClock(new Date())
const receiver = await startReceiver(answerWith(500, { 'retry-after': '1' }))
const svc = await startService({ allowlist: [receiver.allowlistEntry], clock, env: { WEBHOOK_POLL_MS: '50' } })
t.teardown(async () => { await svc.close(); await receiver.close() })

const metadata = { correlation_id: 'test', causation_id: null, actor: 'test' }
const email = 'owner@example.com'
const { org_id } = await svc.run(registerUser({ credentials: { email, password: 'correct horse battery' }, verificationTtlSeconds: 3600, metadata }))
const { secret: key } = await svc.run(createApiKey({ org_id, name: 'hooks', scopes: ['webhooks.manage'], limits: { rate_limit_rpm: 100_000 }, expires_at: null, metadata }))
await waitFor(async () => (await svc.api('GET', '/v1/webhook-endpoints', { key })).status === 200)

t.test('a receiver that always fails is retried on the ladder, all inside 72 hours, then the endpoint is disabled, mailed and audited', async (t) => {
  const created = await svc.api('POST', '/v1/webhook-endpoints', { key, body: { url: receiver.url, enabled_events: ['job.completed'] } })
  t.equal(created.status, 201)
  const endpointId = created.body.endpoint_id
  await svc.api('POST', `/v1/webhook-endpoints/${endpointId}/test`, { key })
  const delivery = async () => (await svc.api('GET', `/v1/webhook-endpoints/${endpointId}/deliveries`, { key })).body.items[0]

  await waitFor(() => receiver.received.length === 1, 10_000)
  for (let retry = 1; retry <= DEFAULT_RETRY_LADDER.length; retry++) {
    await waitFor(async () => (await delivery())?.attempts.length === retry, 10_000)
    const current = await delivery()
    const last = current.attempts.at(-1)
    t.equal(last.outcome, 'retrying', `attempt ${retry} failed and is retried`)
    const wait = Date.parse(current.next_attempt_at) - Date.parse(last.attempted_at)
    const step = DEFAULT_RETRY_LADDER[retry - 1]! * 1000
    t.ok(wait <= step && wait >= step * (1 - JITTER_SHARE), `retry ${retry} after ${wait} ms (ladder ${step} ms, jitter ${JITTER_SHARE * 100}%)`)
    // Nothing is sent before the recorded instant...
    clock.set(new Date(Date.parse(current.next_attempt_at) - 1))
    await new Promise((r) => setTimeout(r, 150))
    t.equal(receiver.received.length, retry, 'not before its time')
    // ...and it is sent once it has come.
    clock.set(current.next_attempt_at)
    await waitFor(() => receiver.received.length === retry + 1, 10_000)
  }
  await waitFor(async () => (await delivery())?.status === 'failed', 10_000)
  const settled = await delivery()
  t.equal(settled.attempts.length, DEFAULT_RETRY_LADDER.length + 1, 'one attempt and nine retries')
  t.equal(settled.attempts.at(-1).outcome, 'exhausted')
  t.equal(settled.next_attempt_at, null)
  const span = Date.parse(settled.attempts.at(-1).attempted_at) - Date.parse(settled.created_at)
  t.ok(span <= RETRY_WINDOW_MS, `the last attempt ${(span / 3_600_000).toFixed(2)} h after the event: inside 72 hours`)
  t.equal(new Set(receiver.received.map((r) => r.event.event_id)).size, 1, 'one event_id on every attempt')

  await waitFor(async () => (await svc.api('GET', `/v1/webhook-endpoints/${endpointId}`, { key })).body.enabled === false, 10_000)
  const endpoint = (await svc.api('GET', `/v1/webhook-endpoints/${endpointId}`, { key })).body
  t.equal(endpoint.disabled_reason, 'failing')
  await waitFor(() => outboxMessages(svc.dataDir).some((m) => m.headers.subject === 'A webhook endpoint was disabled'), 10_000)
  const mail = outboxMessages(svc.dataDir).find((m) => m.headers.subject === 'A webhook endpoint was disabled')!
  t.match(mail.headers.to, email)
  t.match(mail.text, endpointId)
  const { secret: auditKey } = await svc.run(createApiKey({ org_id, name: 'audit', scopes: ['org.read'], limits: { rate_limit_rpm: 100_000 }, expires_at: null, metadata }))
  await waitFor(async () => (await svc.api('GET', '/v1/audit-log', { key: auditKey })).status === 200)
  const audit = (await svc.api('GET', '/v1/audit-log', { key: auditKey })).body.items
  t.match(audit.find((e: any) => e.type === 'WebhookEndpointDisabled'), { actor: 'webhooks', detail: { endpoint_id: endpointId, reason: 'failing' } })

  // Disabled: new events are not delivered.
  await svc.api('POST', `/v1/webhook-endpoints/${endpointId}/test`, { key })
  clock.advance(3_600_000)
  await new Promise((r) => setTimeout(r, 500))
  t.equal(receiver.received.length, DEFAULT_RETRY_LADDER.length + 1, 'nothing more reaches a disabled endpoint')
})
