/**
 * The whole chain in one embedded process on a manual clock: the scheduler fires at the cron instant, the run mints a
 * real job against a local fixture site (reached through SSRF_ALLOWLIST), the fetcher stores what the detection mode
 * reads, the detector compares it, and the change shows on the change endpoints with its diff. Nothing is fed in by
 * hand: the only inputs are the clock and the fixture site's content.
 */
import t from 'tap'
import { makeManualClock } from '../../infra/clock/manual.js'
import { startFixtureSite } from '../fixtures/site.js'
import { startService, waitFor } from '../helpers/service.js'

/** What the fixture site serves now; the tests change it between instants. */
const content = { price: '129.99', nonce: 'n-1', reversedKeys: false }

const shopPage = () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script>window.nonce = "${content.nonce}"</script></head><body><h1>Trail shoe</h1>
<p class="price">Price: $${content.price}</p><p>Light and tough.</p>
<form><input type="hidden" name="csrf" value="${content.nonce}"></form></body></html>`

const productJson = () => {
  const fields: [string, unknown][] = [['name', 'Trail shoe'], ['price', Number(content.price)], ['stock', 4], ['tags', ['outdoor']]]
  return JSON.stringify(Object.fromEntries(content.reversedKeys ? fields.reverse() : fields))
}

const site = await startFixtureSite({
  '/shop': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end(shopPage()) },
  '/api/product': (_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(productJson()) },
})
const clock = makeManualClock('2026-06-01T09:59:30Z')
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`], clock, env: { SCHEDULER_POLL_MS: '20' } })
t.teardown(async () => { await svc.close(); await site.close() })
const org = await svc.createOrg('pro')

const create = async (body: Record<string, unknown>) => {
  const answer = await svc.api('POST', '/v1/monitors', {
    key: org.key, body: { cron: '*/15 * * * *', timezone: 'UTC', job_type: 'light', ...body },
  })
  if (answer.status !== 201) throw new Error(`monitor not created: ${answer.text}`)
  return answer.body.id as string
}
const monitorOf = async (id: string) => (await svc.api('GET', `/v1/monitors/${id}`, { key: org.key })).body
const runsOf = async (id: string) => (await svc.api('GET', `/v1/monitors/${id}/runs`, { key: org.key })).body.items as any[]
const changesOf = async (id: string) => (await svc.api('GET', `/v1/monitors/${id}/changes`, { key: org.key })).body
/** Every monitor's run of `instant` delivered and evaluated (health checked at that instant). */
const evaluatedAt = (ids: readonly string[], instant: string) => waitFor(async () => {
  for (const id of ids) {
    if ((await monitorOf(id)).detection.health.last_checked_at !== instant) return false
  }
  return true
}, 60_000)

const monitors = {
  text: await create({ name: 'text', target_url: `${site.origin}/shop`, detection: { mode: 'text' } }),
  // The monitor's own artifact options ask for neither the raw body nor the extraction result: the runs ask anyway.
  json: await create({ name: 'json', target_url: `${site.origin}/api/product`, detection: { mode: 'json' } }),
  extract: await create({
    name: 'extract', target_url: `${site.origin}/shop`, detection: { mode: 'extract' },
    extraction: { hooks: [{ hook_id: 'price', type: 'css', selector: '.price' }] }, artifact_options: { include_extraction: false },
  }),
  unreadable: await create({ name: 'json of a page', target_url: `${site.origin}/shop`, detection: { mode: 'json' } }),
}
const all = Object.values(monitors)

t.test('the first scheduled runs are the baselines; content the mode cannot read is health unreadable', async (t) => {
  clock.set('2026-06-01T10:00:00Z')
  await evaluatedAt(all, '2026-06-01T10:00:00.000Z')
  for (const [mode, id] of Object.entries(monitors)) {
    const [run] = await runsOf(id)
    t.match(run, { status: 'delivered', trigger: 'schedule', scheduled_for: '2026-06-01T10:00:00.000Z' }, `${mode}: the scheduled run delivered`)
    const expected = mode === 'unreadable' ? 'unreadable' : 'ok'
    t.equal((await monitorOf(id)).detection.health.status, expected, `${mode}: health ${expected}`)
  }
  const jsonRun = (await runsOf(monitors.json))[0]
  const job = (await svc.api('GET', `/v1/jobs/${jsonRun.job_id}`, { key: org.key })).body
  t.ok(job.artifacts.some((a: any) => a.artifact_type === 'response_body'), 'the json monitor\'s job stored the raw body')
  const extractJob = (await svc.api('GET', `/v1/jobs/${(await runsOf(monitors.extract))[0].job_id}`, { key: org.key })).body
  t.ok(extractJob.artifacts.some((a: any) => a.artifact_type === 'json'), 'the extract monitor\'s job stored the extraction result')
  for (const id of all) t.equal((await changesOf(id)).total, 0, 'a baseline is no change')
})

t.test('noise only (a new nonce, reordered JSON keys) changes nothing', async (t) => {
  content.nonce = 'n-2'
  content.reversedKeys = true
  clock.set('2026-06-01T10:15:00Z')
  await evaluatedAt(all, '2026-06-01T10:15:00.000Z')
  for (const [mode, id] of Object.entries(monitors)) {
    t.equal((await runsOf(id)).length, 2, `${mode}: two runs`)
    t.equal((await changesOf(id)).total, 0, `${mode}: no change`)
  }
})

t.test('a real price change is exactly one change per mode, with its diff on the change endpoints', async (t) => {
  content.price = '119.99'
  content.nonce = 'n-3'
  clock.set('2026-06-01T10:30:00Z')
  await evaluatedAt(all, '2026-06-01T10:30:00.000Z')
  const expectedDiffs: Record<string, string> = {
    text: '-Price: $129.99\n+Price: $119.99',
    json: '-$.price: 129.99\n+$.price: 119.99',
  }
  for (const mode of ['text', 'json', 'extract'] as const) {
    const id = monitors[mode]
    const changes = await changesOf(id)
    t.equal(changes.total, 1, `${mode}: one change`)
    const change = changes.items[0]
    const [run] = await runsOf(id)
    t.match(change, { run_id: run.run_id, job_id: run.job_id, has_diff: true, detected_at: '2026-06-01T10:30:00.000Z' }, `${mode}: the change of the 10:30 run's job`)
    t.ok(change.change_ratio > 0 && change.change_ratio <= 1, `${mode}: ratio ${change.change_ratio}`)
    const one = await svc.api('GET', `/v1/monitors/${id}/changes/${change.change_id}`, { key: org.key })
    t.same(one.body, change, `${mode}: the change record`)
    const diff = await svc.api('GET', `/v1/monitors/${id}/changes/${change.change_id}/diff`, { key: org.key })
    t.equal(diff.status, 200)
    if (expectedDiffs[mode]) t.equal(diff.text, expectedDiffs[mode], `${mode}: the diff`)
    else t.match(diff.text, /^-price.*129\.99.*\n\+price.*119\.99/, `${mode}: a field-level diff of the hook's value`)
    t.equal((await monitorOf(id)).detection.health.last_change_at, '2026-06-01T10:30:00.000Z')
  }
  t.equal((await changesOf(monitors.unreadable)).total, 0, 'an unreadable body is never a change')
  t.equal((await monitorOf(monitors.unreadable)).detection.health.status, 'unreadable')
})

t.test('history_days: changes and runs older than the plan\'s history (pro: 90 days) are no longer shown', async (t) => {
  for (const id of all) t.equal((await svc.api('POST', `/v1/monitors/${id}/pause`, { key: org.key })).status, 200)
  const id = monitors.text
  const [change] = (await changesOf(id)).items
  const changePath = `/v1/monitors/${id}/changes/${change.change_id}`
  t.equal((await monitorOf(id)).detection.history_days, 90)

  clock.set('2026-08-30T10:30:00.000Z')
  t.equal((await changesOf(id)).total, 1, 'exactly 90 days later the change is still listed')
  t.equal((await svc.api('GET', changePath, { key: org.key })).status, 200)
  t.same((await runsOf(id)).map((r) => r.scheduled_for), ['2026-06-01T10:30:00.000Z'], 'and the run of that instant, the older runs gone')

  clock.set('2026-08-30T10:30:00.001Z')
  t.equal((await changesOf(id)).total, 0, 'a moment later it is not')
  t.equal((await svc.api('GET', changePath, { key: org.key })).status, 404, 'nor readable on its own')
  t.equal((await svc.api('GET', `${changePath}/diff`, { key: org.key })).status, 404, 'nor its diff')
  t.equal((await runsOf(id)).length, 0, 'no run is left in the history')
})
