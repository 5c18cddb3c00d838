import t from 'tap'
import { DEFAULT_ROLES } from '../../infra/config.js'
import { makeManualClock } from '../../infra/clock/manual.js'
import { startFixtureSite } from '../fixtures/site.js'
import { signUp } from '../helpers/account.js'
import { startService, tempDataDir, waitFor } from '../helpers/service.js'

// A run asked for ahead whose instant passes while no scheduler runs: when the scheduler comes back, its catch-up run
// takes that run's place and the run asked for ends `skipped` (`missed`), so nothing stays pending. Manual clock.
const site = await startFixtureSite({
  '/watched': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<html><body><p>Out of stock</p></body></html>') },
})
t.teardown(() => site.close())
const start = Date.parse('2026-05-01T10:00:00Z')
const at = (minutes: number) => new Date(start + minutes * 60_000).toISOString()
const clock = makeManualClock(new Date(start))
const dataDir = tempDataDir('missed-runs')
const options = { dataDir, clock, allowlist: [`127.0.0.1:${site.port}`], env: { SCHEDULER_POLL_MS: '20', LOGIN_ATTEMPTS_PER_MINUTE: '1000' } }

t.test('the catch-up run closes the run asked for ahead: skipped (missed), never left pending', async (t) => {
  const withoutScheduler = await startService({ ...options, roles: DEFAULT_ROLES.filter((role) => role !== 'scheduler') })
  const user = await signUp(withoutScheduler)
  const created = await withoutScheduler.api('POST', '/content-monitors', {
    headers: user.bearer, body: { url: `${site.origin}/watched`, backend: 'httpx', frequencyMinutes: 5, rule: { type: 'any_change', config: {} } },
  })
  t.equal(created.body.nextRunAt, at(5))
  const ahead = await withoutScheduler.api('POST', `/content-monitors/${created.body.id}/runs`, { headers: user.bearer, body: {} })
  t.same([ahead.status, ahead.body.status, ahead.body.scheduledAt], [201, 'pending', at(5)])
  // Minutes 5 and 10 pass with no scheduler running.
  clock.set(at(11))
  await new Promise((r) => setTimeout(r, 300))
  const runsOf = async (svc: typeof withoutScheduler) =>
    ((await svc.api('GET', `/content-monitors/${created.body.id}/runs?limit=100`, { headers: user.bearer })).body.runs as any[])
      .sort((a, b) => a.scheduledAt.localeCompare(b.scheduledAt))
  t.same((await runsOf(withoutScheduler)).map((r) => r.status), ['pending'], 'nothing starts it while the scheduler is down')
  await withoutScheduler.close()

  const restarted = await startService(options)
  t.teardown(() => restarted.close())
  await waitFor(async () => {
    const runs = await runsOf(restarted)
    return runs.length === 2 && runs.every((r) => !['pending', 'running'].includes(r.status))
  }, 20_000)
  const runs = await runsOf(restarted)
  t.match(runs[0], { id: ahead.body.id, scheduledAt: at(5), status: 'skipped', errorCode: 'missed', startedAt: null, completedAt: at(11) })
  t.match(runs[1], { scheduledAt: at(10), status: 'succeeded', errorCode: null }, 'the catch-up run is the latest missed instant')
  const monitor = (await restarted.api('GET', `/content-monitors/${created.body.id}`, { headers: user.bearer })).body
  t.same([monitor.nextRunAt, monitor.lastErrorCode, monitor.consecutiveFailures], [at(15), null, 0], 'a missed run is no error and no failure')
  await new Promise((r) => setTimeout(r, 300))
  t.equal((await runsOf(restarted)).length, 2, 'many scheduler passes later, still two runs')
})
