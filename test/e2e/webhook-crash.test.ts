import t from 'tap'
import { startFixtureSite } from '../fixtures/site.js'
import { tempDataDir, waitFor } from '../helpers/service.js'
import { runCli, spawnService } from '../helpers/process.js'
import { startReceiver, type ReceivedWebhook } from '../helpers/webhook-receiver.js'

const BEFORE = 10
const WHILE_DOWN = 20
const site = await startFixtureSite()
const firstReceiver = await startReceiver()
const receiverPort = firstReceiver.port
const dataDir = tempDataDir('webhook-crash')
// Retries every second, so the whole test fits in a minute; the ladder itself is checked with a manual clock. The
// refused connections open the endpoint's circuit breaker: its cool-down is a second too (the breaker has its own test).
const env = {
  DATA_DIR: dataDir, SSRF_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${receiverPort}`,
  WEBHOOK_RETRY_SCHEDULE: Array(60).fill('1').join(','), WEBHOOK_POLL_MS: '100', WEBHOOK_CIRCUIT_COOLDOWN_MS: '1000',
}
t.teardown(() => site.close())

/**
 * The receiver back at the URL the endpoint was registered with. Its port was free only while it was down: a test
 * running alongside may have taken it with its own listen(0) meanwhile, and holds it only as long as its server runs.
 */
const comeBack = async (): ReturnType<typeof startReceiver> => {
  for (const deadline = Date.now() + 60_000; ;) {
    try {
      return await startReceiver(undefined, receiverPort)
    } catch (error) {
      if ((error as { code?: string }).code !== 'EADDRINUSE' || Date.now() > deadline) throw error
      await new Promise((r) => setTimeout(r, 200))
    }
  }
}

t.test('a receiver down while the service is SIGKILLed and restarted still gets every event, each once', async (t) => {
  const received: ReceivedWebhook[] = []
  let receiver = firstReceiver
  const { api_key: key } = await runCli(env, ['org', 'create', '--name', 'Hooked Co', '--plan', 'pro'])
  let service = await spawnService(env)
  t.teardown(() => { if (service.child.exitCode !== null && service.child.exitCode !== 0) console.error(service.stderr()) })
  // Calls are safe to repeat (jobs carry an idempotency token): a kept-alive socket the server closed meanwhile is retried.
  const call = async (method: string, path: string, body?: unknown, tries = 3): Promise<{ status: number; body: any }> => {
    try {
      const res = await fetch(`${service.base}${path}`, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) })
      return { status: res.status, body: await res.json() }
    } catch (error) {
      if (tries <= 1) throw new Error(`${String(error)}; service stderr: ${service.stderr()}`)
      return call(method, path, body, tries - 1)
    }
  }
  const created = await call('POST', '/v1/webhook-endpoints', { url: receiver.url, enabled_events: ['job.completed'] })
  t.equal(created.status, 201)
  let submitted = 0
  const submit = async () => (await call('POST', '/v1/jobs', { job_type: 'light', target_url: `${site.origin}/page`, idempotency_token: `job-${++submitted}` })).body.job_id as string
  const completed = () => [...received, ...receiver.received].filter((r) => r.event.type === 'job.completed')

  const jobs: string[] = []
  for (let i = 0; i < BEFORE; i++) jobs.push(await submit())
  await waitFor(() => completed().length >= BEFORE, 30_000)
  // Every attempt so far is recorded before the receiver goes away.
  await waitFor(async () => (await call('GET', `/v1/webhook-endpoints/${created.body.endpoint_id}/deliveries?per_page=100`)).body.items.every((d: any) => d.status === 'succeeded'), 10_000)
  received.push(...receiver.received)
  await receiver.close()

  for (let i = 0; i < WHILE_DOWN; i++) jobs.push(await submit())
  // Some deliveries have failed at least once (connection refused) and wait for their retry when the process dies.
  await waitFor(async () => (await call('GET', `/v1/webhook-endpoints/${created.body.endpoint_id}/deliveries?per_page=100`)).body.items.filter((d: any) => d.attempts.length > 0 && d.status === 'pending').length >= 5, 30_000)
  service.child.kill('SIGKILL')
  await service.exited

  receiver = await comeBack()
  service = await spawnService(env)
  await waitFor(() => new Set(completed().map((r) => r.event.data.job_id)).size === jobs.length, 60_000, 100)
  await new Promise((r) => setTimeout(r, 3_000))
  const all = completed()
  t.same(new Set(all.map((r) => r.event.data.job_id)), new Set(jobs), 'every job.completed arrived')
  const perEvent = new Map<string, number>()
  for (const r of all) perEvent.set(r.event.event_id, (perEvent.get(r.event.event_id) ?? 0) + 1)
  t.equal(perEvent.size, jobs.length, 'one event_id per job')
  // At-least-once: an event may arrive again only after an attempt that may have reached the receiver was recorded as
  // failed (it timed out, e.g. on a loaded machine). An answered attempt that went unrecorded at the crash would show
  // as more arrivals than such attempts.
  const deliveries = (await call('GET', `/v1/webhook-endpoints/${created.body.endpoint_id}/deliveries?per_page=100`)).body.items as { event_id: string; attempts: { status_code: number | null; error: string | null }[] }[]
  const mayHaveReached = new Map(deliveries.map((d) => [d.event_id, d.attempts.filter((a) => a.status_code !== null || a.error === 'timeout').length]))
  const unexplained = [...perEvent].filter(([eventId, arrivals]) => arrivals > (mayHaveReached.get(eventId) ?? 0))
  t.same(unexplained, [], 'no event arrived more often than the attempts recorded as having possibly reached the receiver')
  service.child.kill('SIGTERM')
  t.equal(await service.exited, 0)
  await receiver.close()
})
