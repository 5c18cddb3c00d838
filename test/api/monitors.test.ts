import t from 'tap'
import { makeManualClock } from '../../infra/clock/manual.js'
import { CREDIT_USAGE } from '../../projections/credits.js'
import { findDocs } from '../../projections/projection.js'
import { startFixtureSite } from '../fixtures/site.js'
import { startService, waitFor } from '../helpers/service.js'

const site = await startFixtureSite()
const clock = makeManualClock('2026-05-01T10:00:30Z')
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`], clock, env: { SCHEDULER_POLL_MS: '20' } })
t.teardown(async () => { await svc.close(); await site.close() })
const pro = await svc.createOrg('pro')
const other = await svc.createOrg('pro')
const free = await svc.createOrg('free')
const starter = await svc.createOrg('starter')

const monitor = (overrides: Record<string, unknown> = {}) => ({
  name: 'widget', cron: '*/15 * * * *', timezone: 'Europe/Berlin', job_type: 'light', target_url: `${site.origin}/page`, tags: ['shop'], ...overrides,
})
const runsOf = async (key: string, id: string) => (await svc.api('GET', `/v1/monitors/${id}/runs`, { key })).body.items as any[]
const settled = (run: any) => !['queued', 'pending', 'minted'].includes(run.status)

t.test('bad input answers 400/422 with codes and creates nothing', async (t) => {
  const cases: [Record<string, unknown>, number, string][] = [
    [{ ...monitor(), name: undefined }, 400, 'missing_name'],
    [{ ...monitor(), cron: undefined }, 400, 'missing_cron'],
    [{ ...monitor(), target_url: undefined }, 400, 'missing_target_url'],
    [monitor({ cron: '*/15 * * *' }), 422, 'invalid_cron'],
    [monitor({ cron: '0 0 30 2 *' }), 422, 'invalid_cron'],
    [monitor({ cron: '0 *\n* * *' }), 422, 'invalid_cron'],
    [monitor({ cron: '0 * * * *\u001b[2J' }), 422, 'invalid_cron'],
    [monitor({ timezone: 'Mars/Olympus' }), 422, 'invalid_timezone'],
    [monitor({ overlap_policy: 'queue' }), 422, 'invalid_overlap_policy'],
    [monitor({ detection: { mode: 'selector' } }), 422, 'missing_selector'],
    [monitor({ detection: { mode: 'selector', selector: 'div[' } }), 422, 'invalid_selector'],
    [monitor({ detection: { mode: 'extract' } }), 422, 'missing_extraction'],
    [monitor({ detection: { min_change_ratio: 2 } }), 422, 'invalid_min_change_ratio'],
    [monitor({ detection: { notify: { email: ['not-an-address'] } } }), 422, 'invalid_notify_email'],
    [monitor({ detection: { notify: { digest: 'hourly' } } }), 422, 'invalid_notify_digest'],
    [monitor({ detection: { noise: 'on' } }), 422, 'invalid_noise'],
    [monitor({ detection: { noise: { dates: 1 } } }), 422, 'invalid_noise_step'],
    [monitor({ detection: { noise: { clocks: true } } }), 422, 'unknown_field'],
    [monitor({ headless: true }), 422, 'invalid_headless_tier'],
    [monitor({ timeout_ms: 5 }), 422, 'invalid_timeout_ms'],
    [monitor({ idempotency_token: 'x' }), 422, 'unknown_field'],
    [monitor({ cron: '*/5 * * * *' }), 422, 'interval_below_plan_minimum'],
  ]
  for (const [body, status, code] of cases) {
    const answer = await svc.api('POST', '/v1/monitors', { key: pro.key, body })
    t.equal(answer.status, status, `${code}: status`)
    t.equal(answer.body.error?.code, code, `${code}: ${JSON.stringify(answer.body.error?.details ?? answer.body)}`)
  }
  t.equal((await svc.api('POST', '/v1/monitors', { key: pro.key, rawBody: '{', headers: { 'content-type': 'application/json' } })).status, 400)
  const freeAnswer = await svc.api('POST', '/v1/monitors', { key: free.key, body: monitor() })
  t.equal(freeAnswer.body.error?.code, 'monitoring_not_in_plan')
  const hourlyOnStarter = await svc.api('POST', '/v1/monitors', { key: starter.key, body: monitor({ cron: '30 1,2 * * *', timezone: 'UTC' }) })
  t.equal(hourlyOnStarter.body.error?.code, undefined, 'two fires an hour apart fit the starter plan')
  const dst = await svc.api('POST', '/v1/monitors', { key: starter.key, body: monitor({ cron: '30 1,3 * * *', timezone: 'America/New_York' }) })
  t.equal(dst.status, 201, 'two hours apart on the wall clock, one real hour on spring-forward day: still 1 hour')
  const short = await svc.api('POST', '/v1/monitors', { key: starter.key, body: monitor({ cron: '0,30 9 * * *' }) })
  t.equal(short.body.error?.code, 'interval_below_plan_minimum', '30 minutes apart on starter')
  t.equal((await svc.api('GET', '/v1/monitors', { key: pro.key })).body.total, 0, 'nothing was created for pro')
})

t.test('the starter plan holds 5 monitors; a 6th is refused until one is deleted', async (t) => {
  const list = (await svc.api('GET', '/v1/monitors', { key: starter.key })).body
  const have = list.total as number
  const ids: string[] = list.items.map((m: any) => m.id)
  for (let i = have; i < 5; i++) {
    const created = await svc.api('POST', '/v1/monitors', { key: starter.key, body: monitor({ cron: `${i} 3 * * *`, timezone: 'UTC' }) })
    t.equal(created.status, 201)
    ids.push(created.body.id)
  }
  const sixth = await svc.api('POST', '/v1/monitors', { key: starter.key, body: monitor({ cron: '0 4 * * *' }) })
  t.equal(sixth.status, 422)
  t.equal(sixth.body.error.code, 'monitor_limit_reached')
  t.equal((await svc.api('DELETE', `/v1/monitors/${ids[0]}`, { key: starter.key })).status, 204)
  t.equal((await svc.api('GET', `/v1/monitors/${ids[0]}`, { key: starter.key })).status, 404, 'a deleted monitor is gone')
  t.equal((await svc.api('POST', '/v1/monitors', { key: starter.key, body: monitor({ cron: '0 4 * * *' }) })).status, 201, 'a freed place is taken again')
})

t.test('create, read, list, update, and runs that deliver on schedule', async (t) => {
  const created = await svc.api('POST', '/v1/monitors', { key: pro.key, body: monitor({ detection: { mode: 'text' } }) })
  t.equal(created.status, 201, JSON.stringify(created.body))
  const id = created.body.id
  t.equal(created.body.status, 'active')
  t.equal(created.body.next_run_at, '2026-05-01T10:15:00.000Z', 'next_run_at is exact')
  t.same(created.body.detection.health, { status: null, last_checked_at: null, last_change_at: null })
  t.equal(created.body.detection.enabled, true)
  t.equal(created.body.detection.history_days, 90)
  t.equal((await svc.api('GET', `/v1/monitors/${id}`, { key: other.key })).status, 404, "another organization's monitor is not found")
  t.equal((await svc.api('GET', '/v1/monitors?tag=shop', { key: pro.key })).body.total, 1)
  t.equal((await svc.api('GET', '/v1/monitors?tag=none', { key: pro.key })).body.total, 0)
  t.equal((await svc.api('GET', '/v1/monitors?status=paused', { key: pro.key })).body.total, 0)

  clock.set('2026-05-01T10:15:00Z')
  await waitFor(async () => (await runsOf(pro.key, id)).some(settled), 30_000)
  const [run] = await runsOf(pro.key, id)
  t.equal(run.status, 'delivered', JSON.stringify(run))
  t.equal(run.scheduled_for, '2026-05-01T10:15:00.000Z')
  t.equal(run.trigger, 'schedule')
  t.ok(run.job_id)
  const job = await svc.api('GET', `/v1/jobs/${run.job_id}`, { key: pro.key })
  t.equal(job.body.status, 'succeeded', 'the run minted a real job of the organization')
  t.same(job.body.tags, ['shop'])
  const after = (await svc.api('GET', `/v1/monitors/${id}`, { key: pro.key })).body
  t.equal(after.next_run_at, '2026-05-01T10:30:00.000Z')
  t.equal(after.runs_fired, 1)

  const badPatch = await svc.api('PATCH', `/v1/monitors/${id}`, { key: pro.key, body: { detection: { mode: 'selector' } } })
  t.equal(badPatch.body.error?.code, 'missing_selector')
  const patched = await svc.api('PATCH', `/v1/monitors/${id}`, { key: pro.key, body: { name: 'renamed', detection: { mode: 'selector', selector: '#title' } } })
  t.equal(patched.status, 200)
  t.equal(patched.body.name, 'renamed')
  t.equal(patched.body.detection.selector, '#title')
  const off = await svc.api('PATCH', `/v1/monitors/${id}`, { key: pro.key, body: { detection: { enabled: false } } })
  t.equal(off.body.detection.enabled, false)
  t.equal(off.body.detection.mode, 'selector', 'turning detection off keeps its configuration')
  const kept = await svc.api('PATCH', `/v1/monitors/${id}`, { key: pro.key, body: { name: 'again' } })
  t.equal(kept.body.detection.selector, '#title', 'omitting detection keeps it')
  t.equal((await svc.api('PATCH', `/v1/monitors/${id}`, { key: pro.key, body: { cron: '*/5 * * * *' } })).body.error?.code, 'interval_below_plan_minimum')

  const paused = await svc.api('POST', `/v1/monitors/${id}/pause`, { key: pro.key })
  t.equal(paused.body.status, 'paused')
  t.equal(paused.body.paused_reason, 'user')
  t.equal(paused.body.next_run_at, null)
  t.equal((await svc.api('POST', `/v1/monitors/${id}/runs`, { key: pro.key })).body.error?.code, 'monitor_paused')
  clock.set('2026-05-01T10:40:00Z')
  const resumed = await svc.api('POST', `/v1/monitors/${id}/resume`, { key: pro.key })
  t.equal(resumed.body.status, 'active')
  t.equal(resumed.body.next_run_at, '2026-05-01T10:45:00.000Z', 'the 10:30 instant passed while paused is not owed')
  const now = await svc.api('POST', `/v1/monitors/${id}/runs`, { key: pro.key })
  t.equal(now.status, 202)
  t.equal(now.body.outcome, 'fired')
  await waitFor(async () => (await runsOf(pro.key, id)).filter(settled).length === 2, 30_000)
  t.equal((await runsOf(pro.key, id))[0].trigger, 'manual')
})

t.test('three blocked runs pause the monitor; blocked runs cost nothing', async (t) => {
  clock.set('2026-05-01T11:00:30Z')
  const created = await svc.api('POST', '/v1/monitors', { key: other.key, body: monitor({ cron: '*/15 * * * *', target_url: `${site.origin}/status?code=403`, overlap_policy: 'allow' }) })
  const id = created.body.id
  for (const [i, instant] of ['11:15', '11:30', '11:45'].entries()) {
    clock.set(`2026-05-01T${instant}:00Z`)
    await waitFor(async () => (await runsOf(other.key, id)).filter(settled).length === i + 1, 30_000)
  }
  const runs = await runsOf(other.key, id)
  t.same(runs.map((r) => r.status), ['blocked', 'blocked', 'blocked'])
  t.match(runs[0].detail, /forbidden \(HTTP 403\)/, 'the detail names the signal and status code')
  await waitFor(async () => (await svc.api('GET', `/v1/monitors/${id}`, { key: other.key })).body.status === 'paused')
  const paused = (await svc.api('GET', `/v1/monitors/${id}`, { key: other.key })).body
  t.equal(paused.paused_reason, 'failures')
  t.equal(paused.detection.health.status, 'blocked')
  clock.set('2026-05-01T12:00:00Z')
  await new Promise((r) => setTimeout(r, 200))
  t.equal((await runsOf(other.key, id)).length, 3, 'a paused monitor does not fire')
  const usage = await svc.run(findDocs(CREDIT_USAGE, { org_id: other.org_id }))
  t.equal(usage.reduce((sum, doc) => sum + doc.credits_used, 0), 0, 'blocked runs were not charged')
  const resumed = await svc.api('POST', `/v1/monitors/${id}/resume`, { key: other.key })
  t.equal(resumed.body.failure_streak, 0, 'resume clears the streak')
})
