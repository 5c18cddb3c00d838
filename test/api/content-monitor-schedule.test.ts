import t from 'tap'
import { Effect } from 'effect'
import { fireScheduledContentMonitorRun } from '../../commands/content-monitors.js'
import { makeManualClock } from '../../infra/clock/manual.js'
import { startFixtureSite } from '../fixtures/site.js'
import { signUp } from '../helpers/account.js'
import { portNothingListensOn, startService, waitFor } from '../helpers/service.js'

// Scheduled runs of the account API's content monitors, on a manual clock: each period is one clock step.
let watched = '<html><body><p>Out of stock</p></body></html>'
const site = await startFixtureSite({
  '/watched': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(watched) },
})
const closedPort = await portNothingListensOn()
const start = Date.parse('2026-05-01T10:00:00Z')
const clock = makeManualClock(new Date(start))
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`, `127.0.0.1:${closedPort}`], clock, env: { SCHEDULER_POLL_MS: '20', LOGIN_ATTEMPTS_PER_MINUTE: '1000' } })
t.teardown(async () => { await svc.close(); await site.close() })

const PERIOD = 5 * 60_000
const at = (periods: number) => new Date(start + periods * PERIOD).toISOString()
// Two users (two organizations): each runs one job per instant, within the free plan's two concurrent jobs.
const user = await signUp(svc)
const other = await signUp(svc)
type User = typeof user
const create = async (url: string, owner: User = user) => {
  const created = await svc.api('POST', '/content-monitors', {
    headers: owner.bearer, body: { url, backend: 'httpx', frequencyMinutes: 5, rule: { type: 'text_appeared', config: { needle: 'in stock' } } },
  })
  if (created.status !== 201) throw new Error(`create answered ${created.status} ${created.text}`)
  return created.body.id as string
}
const ownerOf = new Map<string, User>()
const runsOf = async (id: string) => ((await svc.api('GET', `/content-monitors/${id}/runs?limit=100`, { headers: (ownerOf.get(id) ?? user).bearer })).body.runs as any[])
  .sort((a, b) => a.scheduledAt.localeCompare(b.scheduledAt))
const monitorOf = async (id: string) => (await svc.api('GET', `/content-monitors/${id}`, { headers: (ownerOf.get(id) ?? user).bearer })).body
const settled = (runs: any[], count: number) => runs.length === count && runs.every((r) => !['pending', 'running'].includes(r.status))
/** Moves the clock to the end of period `n` and waits until each monitor has its expected count of finished runs. */
const period = async (n: number, expected: [string, number][]) => {
  clock.set(at(n))
  for (const [id, count] of expected) await waitFor(async () => settled(await runsOf(id), count), 20_000)
}

const stock = await create(`${site.origin}/watched`)
const failing = await create(`http://127.0.0.1:${closedPort}/`, other)
ownerOf.set(failing, other)
const paused = await create(`${site.origin}/watched`)
const pausing = await svc.api('PATCH', `/content-monitors/${paused}`, { headers: user.bearer, body: { status: 'paused' } })
if (pausing.status !== 200) throw new Error(`pause answered ${pausing.status}`)

t.test('one scheduled run per period: the rule decides the outcome, nextRunAt moves on, nothing runs twice', async (t) => {
  t.equal((await monitorOf(stock)).nextRunAt, at(1), 'the first run is one period after creation')
  await period(1, [[stock, 1], [failing, 1]])
  t.same((await runsOf(stock)).map((r) => [r.scheduledAt, r.status]), [[at(1), 'succeeded']], 'the first run is the baseline')
  t.equal((await monitorOf(stock)).nextRunAt, at(2))

  watched = '<html><body><p>Back in stock</p></body></html>'
  await period(2, [[stock, 2], [failing, 2]])
  const second = (await runsOf(stock))[1]
  t.same([second.scheduledAt, second.status, second.changeDetected], [at(2), 'triggered', true], 'the needle appeared')
  t.equal((await monitorOf(stock)).nextRunAt, at(3))

  // Asked for ahead, the next instant's run is the one the scheduler starts (one natural key), not a second run.
  const ahead = await svc.api('POST', `/content-monitors/${stock}/runs`, { headers: user.bearer, body: {} })
  t.same([ahead.status, ahead.body.status, ahead.body.scheduledAt], [201, 'pending', at(3)])
  await period(3, [[stock, 3], [failing, 3]])
  const runs = await runsOf(stock)
  t.same(runs.map((r) => [r.scheduledAt, r.status]), [[at(1), 'succeeded'], [at(2), 'triggered'], [at(3), 'succeeded']], 'still present: no new edge')
  t.equal(runs[2].id, ahead.body.id)
  t.equal(new Set(runs.map((r) => r.id)).size, 3)
  t.ok(runs.every((r) => r.startedAt !== null), 'each went pending → running → its outcome')
  t.equal((await monitorOf(stock)).nextRunAt, at(4))

  await new Promise((r) => setTimeout(r, 300))
  t.equal((await runsOf(stock)).length, 3, 'many scheduler passes later, still one run per instant')
})

t.test('schedulers racing for the same instant start one run', async (t) => {
  const fire = () => svc.run(fireScheduledContentMonitorRun(stock, new Date(at(4)), {
    allowlist: new Set([`127.0.0.1:${site.port}`]), planOf: () => Effect.succeed('free' as const),
  }))
  // Three more schedulers fire together with the service's own as the clock reaches the instant.
  const fired = Promise.all([fire(), fire(), fire()])
  clock.set(at(4))
  await fired
  await period(4, [[stock, 4], [failing, 4]])
  const runs = await runsOf(stock)
  t.same(runs.map((r) => r.scheduledAt), [at(1), at(2), at(3), at(4)])
  t.equal(new Set(runs.map((r) => r.id)).size, 4)
  t.equal(runs[3].status, 'succeeded', 'a racer refused by the plan\'s limits does not mark the started run skipped')
})

t.test('scheduled failures count toward auto-disable; a disabled or paused monitor gets no scheduled run', async (t) => {
  await period(5, [[stock, 5], [failing, 5]])
  t.same((await runsOf(failing)).map((r) => [r.status, r.errorCode]), Array(5).fill(['failed', 'network_error']))
  await waitFor(async () => (await monitorOf(failing)).status === 'disabled', 10_000)
  t.same([(await monitorOf(failing)).consecutiveFailures, (await monitorOf(failing)).nextRunAt], [5, null])

  await period(6, [[stock, 6]])
  await period(7, [[stock, 7]])
  await new Promise((r) => setTimeout(r, 300))
  t.equal((await runsOf(failing)).length, 5, 'disabled: no run after the fifth failure')
  t.same(await runsOf(paused), [], 'paused: never run')
})
