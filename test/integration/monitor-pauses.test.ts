/**
 * Monitors that pause themselves, in one embedded process with a real SMTP server and a manual clock: three
 * non-delivering scheduled runs (auto-pause) and a plan downgrade (SPEC 3.4), each mailing the organization's users.
 * Organizations are made as sign-ups make them (a user with a personal free organization), then moved to a plan the
 * way the operator's `cli org set --plan` does.
 */
import { Effect } from 'effect'
import t from 'tap'
import { pauseMonitorsOverPlan } from '../../commands/monitors.js'
import { changeOrgPlan } from '../../commands/org-settings.js'
import { createApiKey, DEFAULT_KEY_LIMITS } from '../../commands/orgs.js'
import { registerUser } from '../../commands/users.js'
import { PLANS } from '../../domain/plans.js'
import { SCOPES } from '../../domain/scopes.js'
import { makeManualClock } from '../../infra/clock/manual.js'
import { startFixtureSite } from '../fixtures/site.js'
import { startSmtpServer } from '../helpers/smtp.js'
import { startService, waitFor } from '../helpers/service.js'

const site = await startFixtureSite()
const smtp = await startSmtpServer()
const clock = makeManualClock('2026-07-06T08:59:30Z')
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`], clock, env: { SCHEDULER_POLL_MS: '20', SMTP_URL: smtp.url } })
t.teardown(async () => { await svc.close(); await site.close(); await smtp.close() })
const metadata = { correlation_id: 'test', causation_id: null, actor: 'test' }

/** A signed-up user's organization on `plan`, with an API key. */
const signUp = async (email: string, plan: string) => {
  const { org_id } = await svc.run(registerUser({ credentials: { email, password: 'correct horse battery staple' }, verificationTtlSeconds: 3600, metadata }))
  await svc.run(changeOrgPlan({ org_id, plan, now: clock.now().toISOString(), metadata }))
  const key = await svc.run(createApiKey({ org_id, name: 'test', scopes: SCOPES, limits: DEFAULT_KEY_LIMITS, expires_at: null, metadata }))
  await waitFor(async () => (await svc.api('GET', '/v1/monitors', { key: key.secret })).status === 200, 20_000)
  return { org_id, key: key.secret }
}
const pauseMails = (email: string) => smtp.received.filter((m) => m.recipients.includes(email) && /^Monitor paused/.test(m.headers.subject ?? ''))
const create = async (key: string, body: Record<string, unknown>) => {
  const answer = await svc.api('POST', '/v1/monitors', { key, body: { timezone: 'UTC', job_type: 'light', target_url: `${site.origin}/page`, ...body } })
  if (answer.status !== 201) throw new Error(`monitor not created: ${answer.text}`)
  return answer.body.id as string
}
const monitorOf = async (key: string, id: string) => (await svc.api('GET', `/v1/monitors/${id}`, { key })).body
const settled = (run: any) => !['queued', 'pending', 'minted'].includes(run.status)

t.test('three blocked scheduled runs pause the monitor and mail the organization\'s user once', async (t) => {
  const owner = 'blocked-owner@example.com'
  const org = await signUp(owner, 'pro')
  const id = await create(org.key, { name: 'Guarded page', cron: '*/15 * * * *', target_url: `${site.origin}/status?code=403`, overlap_policy: 'allow' })
  for (const [i, instant] of ['09:00', '09:15', '09:30'].entries()) {
    clock.set(`2026-07-06T${instant}:00Z`)
    await waitFor(async () => ((await svc.api('GET', `/v1/monitors/${id}/runs`, { key: org.key })).body.items as any[]).filter(settled).length === i + 1, 30_000)
  }
  await waitFor(async () => (await monitorOf(org.key, id)).status === 'paused', 20_000)
  t.match(await monitorOf(org.key, id), { paused_reason: 'failures', failure_streak: 3 })
  await waitFor(() => pauseMails(owner).length > 0, 20_000)
  await new Promise((r) => setTimeout(r, 500))
  const mails = pauseMails(owner)
  t.equal(mails.length, 1, 'exactly one pause e-mail')
  t.equal(mails[0].headers.subject, 'Monitor paused: Guarded page')
  t.match(mails[0].text, new RegExp(`${id}[\\s\\S]*failures[\\s\\S]*/v1/monitors/${id}/resume`), 'it names the monitor, the reason and how to resume')
  t.equal(smtp.received.filter((m) => /^Monitor paused/.test(m.headers.subject ?? '')).length, 1, 'nobody else was mailed')
})

t.test('a plan downgrade pauses what no longer fits, keeps the oldest, mails once per pause, and is idempotent', async (t) => {
  const owner = 'downgrade-owner@example.com'
  const org = await signUp(owner, 'pro')
  // Pro allows 25 monitors every 15 minutes; starter 5, hourly at most.
  const frequent = await create(org.key, { name: 'every quarter hour', cron: '*/15 * * * *' })
  const hourly: string[] = []
  for (let i = 0; i < 6; i++) hourly.push(await create(org.key, { name: `hourly ${i}`, cron: `${i} * * * *`, detection: { mode: 'text' } }))
  const userPaused = await create(org.key, { name: 'paused by its user', cron: '30 * * * *' })
  t.equal((await svc.api('POST', `/v1/monitors/${userPaused}/pause`, { key: org.key })).status, 200)

  await svc.run(changeOrgPlan({ org_id: org.org_id, plan: 'starter', now: clock.now().toISOString(), metadata }))
  await waitFor(async () => (await monitorOf(org.key, hourly[5])).status === 'paused' && (await monitorOf(org.key, frequent)).status === 'paused', 20_000)
  const frequentNow = await monitorOf(org.key, frequent)
  t.equal(frequentNow.paused_reason, 'plan')
  t.match(frequentNow.paused_detail, /minimum interval is 3600 seconds/, 'the interval no longer fits')
  for (const id of hourly.slice(0, 5)) t.equal((await monitorOf(org.key, id)).status, 'active', 'the five oldest that fit keep running')
  const newest = await monitorOf(org.key, hourly[5])
  t.match(newest, { paused_reason: 'plan', paused_detail: /allows 5 active monitors/ }, 'the newest beyond the count pauses')
  t.match(await monitorOf(org.key, userPaused), { status: 'paused', paused_reason: 'user' }, 'a monitor paused by its user stays as it was')

  await waitFor(() => pauseMails(owner).length >= 2, 20_000)
  await new Promise((r) => setTimeout(r, 500))
  t.same(pauseMails(owner).map((m) => m.headers.subject).sort(), ['Monitor paused: every quarter hour', 'Monitor paused: hourly 5'], 'one e-mail per paused monitor')

  const again = await svc.run(pauseMonitorsOverPlan({ org_id: org.org_id, plan: PLANS.starter, now: clock.now(), metadata }))
  t.same(again, [], 'applying the same plan again pauses nothing')
  await svc.run(changeOrgPlan({ org_id: org.org_id, plan: 'starter', now: clock.now().toISOString(), metadata }))
  await new Promise((r) => setTimeout(r, 500))
  t.equal(pauseMails(owner).length, 2, 'setting the same plan again sends nothing')

  const resumeNewest = await svc.api('POST', `/v1/monitors/${hourly[5]}/resume`, { key: org.key })
  t.equal(resumeNewest.body.error?.code, 'monitor_limit_reached', 'no room for a sixth active monitor')
  const resumeFrequent = await svc.api('POST', `/v1/monitors/${frequent}/resume`, { key: org.key })
  t.equal(resumeFrequent.body.error?.code, 'interval_below_plan_minimum', 'a schedule too frequent for the plan stays paused')
  t.equal((await svc.api('DELETE', `/v1/monitors/${hourly[0]}`, { key: org.key })).status, 204)
  const resumed = await svc.api('POST', `/v1/monitors/${hourly[5]}/resume`, { key: org.key })
  t.equal(resumed.status, 200, 'with a place freed it resumes')
  t.equal(resumed.body.status, 'active')

  await svc.run(changeOrgPlan({ org_id: org.org_id, plan: 'free', now: clock.now().toISOString(), metadata }))
  await waitFor(async () => {
    const list = (await svc.api('GET', '/v1/monitors?status=active', { key: org.key })).body
    return list.total === 0
  }, 20_000)
  t.match(await monitorOf(org.key, hourly[1]), { paused_reason: 'plan', paused_detail: /does not include monitoring/ }, 'the free plan has no monitoring')
  await waitFor(() => pauseMails(owner).length === 7, 20_000)
  t.equal(pauseMails(owner).length, 7, 'five more pauses, five more e-mails')
})
