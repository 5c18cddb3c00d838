import t from 'tap'
import { submitAdmittedJob } from '../../commands/admit-job.js'
import { handle } from '../../commands/handle.js'
import { loadUser } from '../../commands/users.js'
import { contentMonitorQuotaDecider } from '../../domain/content-monitor/quota.js'
import { isTimeZone } from '../../domain/schedule/schedule.js'
import { validateScrapeRequest } from '../../domain/scrape/request.js'
import { STREAMS } from '../../domain/streams.js'
import { startFixtureSite } from '../fixtures/site.js'
import { signUp } from '../helpers/account.js'
import { startService, waitFor } from '../helpers/service.js'

// A request whose process stops half-way leaves its first event only. Each such event records enough for the
// service to finish what the request began, so nothing is left half-done. The half-done state is made here by
// recording exactly the first event, as the request would have.
const site = await startFixtureSite()
t.teardown(() => site.close())
const allowlist = [`127.0.0.1:${site.port}`]
const svc = await startService({ allowlist, env: { LOGIN_ATTEMPTS_PER_MINUTE: '1000' } })
t.teardown(() => svc.close())
const metadata = { correlation_id: 'interrupted', causation_id: null, actor: 'test' }
const orgOf = async (userId: string) => {
  const user = await svc.run(loadUser(userId))
  if (!user.exists) throw new Error('no such user')
  return user.org_id
}

t.test('POST /scrapes stopped after admitting its job: the scrape is recorded from the job and gets its result', async (t) => {
  const user = await signUp(svc)
  const other = await signUp(svc)
  const checked = validateScrapeRequest({ url: `${site.origin}/page`, backend: 'httpx' }, { allowlist: new Set(allowlist), isTimeZone })
  if (!checked.ok) throw new Error('invalid scrape')
  const admitted = await svc.run(submitAdmittedJob({
    org_id: await orgOf(user.userId), plan: 'free', key: null, enforcement: 'block', allowlist: new Set(allowlist), now: new Date(), metadata,
    spec: checked.spec, origin: { _tag: 'scrape', user_id: user.userId },
  }))
  await waitFor(async () => (await svc.api('GET', `/scrapes/${admitted.job_id}`, { headers: user.bearer })).body.completedAt != null, 20_000)
  const scrape = await svc.api('GET', `/scrapes/${admitted.job_id}`, { headers: user.bearer })
  t.match(scrape.body, { id: admitted.job_id, url: `${site.origin}/page`, backend: 'httpx', status: 'succeeded', statusCode: 200, saveHtml: true, takeScreenshot: false })
  const listed = await svc.api('GET', '/scrapes', { headers: user.bearer })
  t.same(listed.body.items.map((i: any) => i.id), [admitted.job_id], 'listed among the user\'s scrapes')
  t.equal((await svc.api('GET', `/scrapes/${admitted.job_id}`, { headers: other.bearer })).status, 404, 'still nobody else\'s')
  t.equal((await svc.api('GET', '/scrapes?status=pending', { headers: user.bearer })).body.total, 0)
})

t.test('POST /content-monitors stopped after claiming its place: the monitor is created from the claim', async (t) => {
  const user = await signUp(svc)
  const orgId = await orgOf(user.userId)
  const now = new Date()
  const nextRunAt = new Date(now.getTime() + 5 * 60_000).toISOString()
  const monitorId = '0b6f0f52-5c1e-4d43-9a55-3f1f4a7d2c11'
  await svc.run(handle(contentMonitorQuotaDecider, STREAMS['content-monitor-quota'].stream(user.userId), {
    _tag: 'ClaimPlace', user_id: user.userId, monitor_id: monitorId, now: now.toISOString(),
    creation: {
      org_id: orgId, name: 'Stock', url: `${site.origin}/page`, backend: 'httpx', frequency_minutes: 5,
      rule: { type: 'any_change', config: {} }, next_run_at: nextRunAt, created_at: now.toISOString(),
    },
  }, { org_id: orgId, metadata }))
  await waitFor(async () => (await svc.api('GET', `/content-monitors/${monitorId}`, { headers: user.bearer })).status === 200, 20_000)
  const monitor = await svc.api('GET', `/content-monitors/${monitorId}`, { headers: user.bearer })
  t.match(monitor.body, { id: monitorId, name: 'Stock', status: 'active', frequencyMinutes: 5, nextRunAt, createdAt: now.toISOString() })
  const active = await svc.api('GET', '/content-monitors?status=active', { headers: user.bearer })
  t.same(active.body.items.map((m: any) => m.id), [monitorId], 'the claimed place is the monitor\'s, not a lost one')
  // The claim and the monitor are one: pausing the monitor frees the place it claimed.
  t.equal((await svc.api('PATCH', `/content-monitors/${monitorId}`, { headers: user.bearer, body: { status: 'paused' } })).status, 200)
  const quota = await svc.run(handle(contentMonitorQuotaDecider, STREAMS['content-monitor-quota'].stream(user.userId), {
    _tag: 'ReleasePlace', user_id: user.userId, monitor_id: monitorId, now: new Date().toISOString(),
  }, { org_id: orgId, metadata }))
  t.same(quota.events, [], 'the place was already released with the pause')
})
