import t from 'tap'
import { webhookEndpointCalls } from '../helpers/webhook-endpoints.js'
import { startService, waitFor } from '../helpers/service.js'
import { answerWith, startReceiver } from '../helpers/webhook-receiver.js'

// Another organization's 12 endpoints answer after 60 s (its receiver holds every request that long); deliveries
// wait for answers up to 2 minutes, so nothing frees a slot by timing out during the test.
const HOLD_MS = 60_000
const slow = await startReceiver((_n, _received, res) => {
  setTimeout(() => { if (!res.destroyed) res.end('late') }, HOLD_MS).unref()
})
const fast = await startReceiver(answerWith(200))
const svc = await startService({ allowlist: [slow.allowlistEntry, fast.allowlistEntry], env: { WEBHOOK_TIMEOUT_MS: '120000', WEBHOOK_POLL_MS: '50' } })
t.teardown(async () => { await slow.close(); await fast.close(); await svc.close() })

const { endpoint, ping } = webhookEndpointCalls(svc)

t.test('another organization\'s 12 endpoints answering after 60 s do not hold back a victim\'s delivery', async (t) => {
  const hostile = await svc.createOrg('enterprise')
  const victim = await svc.createOrg('pro')
  const hostileEndpoints: string[] = []
  for (let i = 0; i < 12; i++) hostileEndpoints.push(await endpoint(hostile.key, `${slow.url}?endpoint=${i}`))
  // Three deliveries per endpoint: more than every slot of the process (32).
  for (let round = 0; round < 3; round++) for (const id of hostileEndpoints) await ping(hostile.key, id)
  await waitFor(() => slow.received.length >= 8, 20_000)

  const victimEndpoint = await endpoint(victim.key, fast.url)
  const sent = Date.now()
  await ping(victim.key, victimEndpoint)
  await waitFor(() => fast.received.length === 1, 10_000)
  const latency = fast.received[0]!.at - sent
  t.ok(latency < 10_000, `the victim's delivery arrived ${latency} ms after its event (it waited behind 60 s answers before)`)
  t.equal(fast.received[0]!.event.type, 'ping')
  t.ok(slow.received.length <= 8, `the other organization holds at most its 8 slots (${slow.received.length} of its 36 deliveries sent)`)
})
