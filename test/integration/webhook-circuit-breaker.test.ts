import t from 'tap'
import { webhookEndpointCalls } from '../helpers/webhook-endpoints.js'
import { makeManualClock } from '../../infra/clock/manual.js'
import { startService, waitFor } from '../helpers/service.js'
import { answerWith, startReceiver, type Answer } from '../helpers/webhook-receiver.js'

// A receiver that never answers (each POST is cut by WEBHOOK_TIMEOUT_MS, real time) beside ones that answer at once.
// Cool-downs and retries run on a manual clock: the test moves it to each recorded instant.
const hang: Answer = () => {}
const clock = makeManualClock(new Date('2026-11-01T00:00:00.000Z'))
const hanging = await startReceiver(hang)
const sameOrg = await startReceiver(answerWith(200))
const otherOrg = await startReceiver(answerWith(200))
const svc = await startService({
  allowlist: [hanging.allowlistEntry, sameOrg.allowlistEntry, otherOrg.allowlistEntry], clock,
  env: { WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_POLL_MS: '50', WEBHOOK_CIRCUIT_THRESHOLD: '3', WEBHOOK_CIRCUIT_COOLDOWN_MS: '60000', WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS: '3600000' },
})
t.teardown(async () => { await svc.close(); await hanging.close(); await sameOrg.close(); await otherOrg.close() })

const { endpoint, ping } = webhookEndpointCalls(svc)
const view = async (key: string, endpointId: string) => (await svc.api('GET', `/v1/webhook-endpoints/${endpointId}`, { key })).body
const deliveries = async (key: string, endpointId: string) => (await svc.api('GET', `/v1/webhook-endpoints/${endpointId}/deliveries`, { key })).body.items as any[]
const attempts = async (key: string, endpointId: string) => (await deliveries(key, endpointId)).reduce((n, d) => n + d.attempts.length, 0)
/** Real time for the dispatcher to act on what it was shown (it polls every 50 ms; a POST is cut after 300 ms). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1_000))

t.test('an endpoint that keeps timing out is left alone for a growing cool-down, probed once, closed by an answer; others are unaffected', async (t) => {
  const org = await svc.createOrg('pro')
  const other = await svc.createOrg('pro')
  const slow = await endpoint(org.key, hanging.url)
  const fine = await endpoint(org.key, sameOrg.url)
  const elsewhere = await endpoint(other.key, otherOrg.url)
  t.same((await view(org.key, slow)).circuit, { state: 'closed', opened_at: null, retry_at: null }, 'a new endpoint: closed')

  for (let i = 0; i < 3; i++) await ping(org.key, slow)
  await waitFor(async () => (await view(org.key, slow)).circuit.state === 'open', 15_000)
  const opened = (await view(org.key, slow)).circuit
  t.equal(opened.opened_at, clock.now().toISOString(), 'opened at the clock\'s time')
  t.equal(Date.parse(opened.retry_at) - Date.parse(opened.opened_at), 60_000, 'for the first cool-down')
  t.equal(hanging.received.length, 3, 'three deliveries got no answer')

  // While open: new deliveries wait, unsent and with no attempt; the organization's other endpoint and another
  // organization's are served at once.
  await ping(org.key, slow)
  await ping(org.key, slow)
  await ping(org.key, fine)
  await ping(other.key, elsewhere)
  await waitFor(() => sameOrg.received.length === 1 && otherOrg.received.length === 1, 5_000)
  clock.advance(30_000)
  await settle()
  t.equal(hanging.received.length, 3, 'nothing is sent to an open circuit, even as retries come due')
  t.equal(await attempts(org.key, slow), 3, 'waiting deliveries are not counted as attempts')
  t.equal((await deliveries(org.key, slow)).filter((d) => d.status === 'pending').length, 5, 'and none is dropped')

  // The cool-down ends: one probe, no answer, reopened for twice as long.
  clock.set(opened.retry_at)
  await waitFor(async () => (await view(org.key, slow)).circuit.opened_at !== opened.opened_at, 10_000)
  await settle()
  t.equal(hanging.received.length, 4, 'exactly one probe was sent')
  const reopened = (await view(org.key, slow)).circuit
  t.equal(reopened.state, 'open')
  t.equal(Date.parse(reopened.retry_at) - Date.parse(reopened.opened_at), 120_000, 'the cool-down doubled')
  t.equal(await attempts(org.key, slow), 4, 'the probe is the only new attempt')
  // The probe is any due delivery: its own retry follows the ladder from its attempts (a first attempt's retry comes
  // after 5 s, a second's after 5 minutes), so it is due again at the next cool-down's end only if it was a new one.
  const probeWasRetried = (await deliveries(org.key, slow)).some((d) => d.attempts.length === 2)

  // The receiver answers again: the next probe closes the circuit and every waiting delivery goes.
  hanging.answerWith(answerWith(200))
  clock.set(reopened.retry_at)
  await waitFor(async () => (await view(org.key, slow)).circuit.state === 'closed', 10_000)
  t.same((await view(org.key, slow)).circuit, { state: 'closed', opened_at: null, retry_at: null })
  const succeeded = async () => (await deliveries(org.key, slow)).filter((d) => d.status === 'succeeded').length
  // The four others were due; so was the failed probe unless it was on the ladder's second step (5 minutes).
  await waitFor(async () => (await succeeded()) === (probeWasRetried ? 4 : 5), 10_000)
  clock.advance(600_000)
  await waitFor(async () => (await succeeded()) === 5, 10_000)
  t.pass('all five deliveries arrived in the end')
  t.equal(sameOrg.received.length, 1)
  t.equal(otherOrg.received.length, 1)
})
