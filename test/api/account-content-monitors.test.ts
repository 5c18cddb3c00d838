import type { ServerResponse } from 'node:http'
import t from 'tap'
import { MAX_BODY_BYTES } from '../../fetchers/body-limit.js'
import { startFixtureSite } from '../fixtures/site.js'
import { colleagueOf, signUp } from '../helpers/account.js'
import { outboxMessages } from '../helpers/mail.js'
import { portNothingListensOn, startService, waitFor } from '../helpers/service.js'

let watched = '<html><body><p>Out of stock</p></body></html>'
// Answers held until the test lets them go (the free plan's two concurrent jobs stay busy meanwhile).
const held: ServerResponse[] = []
const site = await startFixtureSite({
  '/watched': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(watched) },
  // 200, then a body past the 25 MB a job keeps: the job fails with response_too_large after the target answered.
  '/huge': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('a'.repeat(MAX_BODY_BYTES + 1)) },
  '/held': (_req, res) => { held.push(res) },
})
t.teardown(() => { for (const res of held) res.destroy(); return site.close() })
const closedPort = await portNothingListensOn()
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`, `127.0.0.1:${closedPort}`], env: { LOGIN_ATTEMPTS_PER_MINUTE: '1000' } })
t.teardown(() => svc.close())

const MONITOR_FIELDS = ['id', 'name', 'url', 'backend', 'status', 'frequencyMinutes', 'rule', 'nextRunAt', 'lastRunAt', 'lastChangeAt', 'lastChangeSummary',
  'lastSnapshot', 'consecutiveFailures', 'createdAt', 'updatedAt', 'lastErrorCode', 'lastErrorMessage']
const anyChange = { type: 'any_change', config: {} }
const monitorBody = (extra: Record<string, unknown> = {}) => ({ url: `${site.origin}/watched`, backend: 'httpx', frequencyMinutes: 60, rule: anyChange, ...extra })
type User = Awaited<ReturnType<typeof signUp>>
const create = (user: User, body: unknown) => svc.api('POST', '/content-monitors', { headers: user.bearer, body })
const runs = (user: User, id: string, limit = 20) => svc.api('GET', `/content-monitors/${id}/runs?limit=${limit}`, { headers: user.bearer })
const forceRun = async (user: User, id: string) => {
  const asked = await svc.api('POST', `/content-monitors/${id}/runs`, { headers: user.bearer, body: { force: true } })
  if (asked.status !== 201) throw new Error(`run answered ${asked.status} ${asked.text}`)
  await waitFor(async () => !['pending', 'running'].includes((await runs(user, id)).body.runs.find((r: any) => r.id === asked.body.id)?.status), 20_000)
  return (await runs(user, id)).body.runs.find((r: any) => r.id === asked.body.id)
}

t.test('create: 201 active, nextRunAt one period ahead, name defaults to the URL', async (t) => {
  const user = await signUp(svc)
  const created = await create(user, monitorBody())
  t.equal(created.status, 201)
  t.same(Object.keys(created.body).sort(), [...MONITOR_FIELDS].sort())
  t.equal(created.body.name, `${site.origin}/watched`)
  t.equal(created.body.status, 'active')
  t.equal(Date.parse(created.body.nextRunAt) - Date.parse(created.body.createdAt), 60 * 60_000)
  t.same([created.body.lastRunAt, created.body.lastSnapshot, created.body.consecutiveFailures, created.body.lastErrorCode], [null, null, 0, null])
  const named = await create(user, monitorBody({ name: 'Stock', rule: { type: 'text_appeared', config: { needle: 'in stock' } } }))
  t.equal(named.body.name, 'Stock')
  t.same(named.body.rule, { type: 'text_appeared', config: { needle: 'in stock', caseSensitive: false } })
  t.equal((await svc.api('POST', '/content-monitors', { body: monitorBody() })).status, 401)
})

t.test('validation: 422 with errors naming the fields', async (t) => {
  const user = await signUp(svc)
  const cases: [unknown, [string, string][]][] = [
    [{}, [['url', 'missing_url'], ['backend', 'missing_backend'], ['frequencyMinutes', 'missing_frequencyMinutes'], ['rule', 'missing_rule']]],
    [monitorBody({ frequencyMinutes: 4 }), [['frequencyMinutes', 'invalid_frequencyMinutes']]],
    [monitorBody({ frequencyMinutes: 1441 }), [['frequencyMinutes', 'invalid_frequencyMinutes']]],
    [monitorBody({ frequencyMinutes: 7.5 }), [['frequencyMinutes', 'invalid_frequencyMinutes']]],
    [monitorBody({ rule: { type: 'text_appeared', config: { needle: 'x'.repeat(513) } } }), [['rule.config.needle', 'needle_too_long']]],
    [monitorBody({ rule: { type: 'text_disappeared', config: {} } }), [['rule.config.needle', 'missing_needle']]],
    [monitorBody({ rule: { type: 'text_appeared', config: { needle: 'a', caseSensitive: 'yes' } } }), [['rule.config.caseSensitive', 'invalid_caseSensitive']]],
    [monitorBody({ rule: { type: 'any_change', config: { needle: 'a' } } }), [['rule.config.needle', 'unknown_field']]],
    [monitorBody({ rule: { type: 'regex' } }), [['rule.type', 'invalid_rule_type']]],
    [monitorBody({ backend: 'curl', extra: true }), [['extra', 'unknown_field'], ['backend', 'invalid_backend']]],
    [monitorBody({ url: 'http://10.0.0.1/' }), [['url', 'unsafe_url']]],
  ]
  for (const [body, expected] of cases) {
    const answer = await create(user, body)
    t.equal(answer.status, 422, JSON.stringify(body).slice(0, 100))
    t.equal(answer.body.detail, 'validation_error')
    t.same(answer.body.errors.map((e: any) => [e.field, e.code]), expected, JSON.stringify(body).slice(0, 100))
  }
  t.ok(monitorBody({ rule: { type: 'text_appeared', config: { needle: 'x'.repeat(512) } } }) && (await create(user, monitorBody({ rule: { type: 'text_appeared', config: { needle: 'x'.repeat(512) } } }))).status === 201, 'a 512-character needle is accepted')
  const patch = await svc.api('PATCH', `/content-monitors/${(await create(user, monitorBody())).body.id}`, { headers: user.bearer, body: { status: 'gone', frequencyMinutes: 2 } })
  t.equal(patch.status, 422)
  t.same(patch.body.errors.map((e: any) => e.field).sort(), ['frequencyMinutes', 'status'])
})

t.test('a colleague in the organization sees, changes and runs its monitors', async (t) => {
  const owner = await signUp(svc)
  const colleague = await colleagueOf(svc, owner)
  const { id } = (await create(owner, monitorBody())).body
  const listed = await svc.api('GET', '/content-monitors', { headers: colleague.bearer })
  t.same(listed.body.items.map((m: any) => m.id), [id], "the organization's monitors")
  t.equal((await svc.api('GET', `/content-monitors/${id}`, { headers: colleague.bearer })).status, 200)
  const renamed = await svc.api('PATCH', `/content-monitors/${id}`, { headers: colleague.bearer, body: { name: 'shared' } })
  t.equal(renamed.body.name, 'shared')
  t.equal((await forceRun({ ...owner, bearer: colleague.bearer }, id)).status, 'succeeded', 'a forced run by the colleague')
  t.equal((await svc.api('GET', `/content-monitors/${id}`, { headers: owner.bearer })).body.name, 'shared', 'the owner sees the change')
})

t.test('another organization\'s monitor is 404 on every route', async (t) => {
  const owner = await signUp(svc)
  const stranger = await signUp(svc)
  const { id } = (await create(owner, monitorBody())).body
  for (const [method, path, body] of [['GET', `/content-monitors/${id}`], ['PATCH', `/content-monitors/${id}`, { name: 'mine' }], ['GET', `/content-monitors/${id}/runs`], ['POST', `/content-monitors/${id}/runs`, { force: true }]] as const) {
    const answer = await svc.api(method, path, { headers: stranger.bearer, ...(body ? { body } : {}) })
    t.equal(answer.status, 404, `${method} ${path}`)
    t.same(answer.body, { detail: 'content_monitor_not_found' })
  }
  t.equal((await svc.api('GET', '/content-monitors', { headers: stranger.bearer })).body.total, 0)
  t.equal((await svc.api('GET', `/content-monitors/${id}`, { headers: owner.bearer })).body.name, `${site.origin}/watched`, 'unchanged')
})

t.test('list: pagination envelope and edges, filters, q on name or URL, sort orders', async (t) => {
  const user = await signUp(svc)
  const ids: string[] = []
  for (const [name, minutes] of [['alpha', 30], ['beta', 5], ['gamma', 1440]] as const) {
    ids.push((await create(user, monitorBody({ name, frequencyMinutes: minutes }))).body.id)
    await new Promise((r) => setTimeout(r, 5))
  }
  const list = (query: string) => svc.api('GET', `/content-monitors${query}`, { headers: user.bearer })
  const all = await list('')
  t.same(all.body.items.map((i: any) => i.id), [...ids].reverse(), 'newest first')
  t.same([all.body.total, all.body.page, all.body.perPage, all.body.pageCount], [3, 1, 20, 1])
  t.same((await list('?sort=nextRunAt&dir=asc')).body.items.map((i: any) => i.name), ['beta', 'alpha', 'gamma'])
  t.same((await list('?sort=nextRunAt&dir=desc')).body.items.map((i: any) => i.name), ['gamma', 'alpha', 'beta'])
  t.same((await list('?sort=createdAt&dir=asc')).body.items.map((i: any) => i.id), ids)
  await svc.api('PATCH', `/content-monitors/${ids[0]}`, { headers: user.bearer, body: { name: 'alpha 2' } })
  t.equal((await list('?sort=updatedAt&dir=desc')).body.items[0].id, ids[0])
  const page2 = await list('?perPage=2&page=2&dir=asc')
  t.same(page2.body.items.map((i: any) => i.id), [ids[2]])
  t.same([page2.body.total, page2.body.pageCount], [3, 2])
  t.same((await list('?perPage=2&page=9')).body.items, [])
  t.equal((await list('?perPage=101')).status, 422)
  t.equal((await list('?sort=name')).status, 422)
  t.same((await list('?q=GAMM')).body.items.map((i: any) => i.name), ['gamma'])
  t.equal((await list('?q=watched')).body.total, 3, 'q matches the URL too')
  await svc.api('PATCH', `/content-monitors/${ids[1]}`, { headers: user.bearer, body: { status: 'paused' } })
  t.same((await list('?status=paused')).body.items.map((i: any) => i.name), ['beta'])
  t.equal((await list('?status=active')).body.total, 2)
  t.equal((await list('?backend=playwright')).body.total, 0)
  t.ok('lastSnapshot' in all.body.items[0] && !('lastErrorCode' in all.body.items[0]), 'items carry the last snapshot; diagnostics are for get')
})

t.test('PATCH: name, frequency (moves nextRunAt), status (paused has no next run), rule', async (t) => {
  const user = await signUp(svc)
  const { id, createdAt } = (await create(user, monitorBody())).body
  const patched = await svc.api('PATCH', `/content-monitors/${id}`, { headers: user.bearer, body: { name: 'Renamed', frequencyMinutes: 5, rule: { type: 'status_code_change' } } })
  t.equal(patched.status, 200)
  t.same([patched.body.name, patched.body.frequencyMinutes, patched.body.rule], ['Renamed', 5, { type: 'status_code_change', config: {} }])
  t.equal((Date.parse(patched.body.nextRunAt) - Date.parse(createdAt)) % (5 * 60_000), 0)
  t.ok(Date.parse(patched.body.nextRunAt) - Date.now() <= 5 * 60_000)
  const paused = await svc.api('PATCH', `/content-monitors/${id}`, { headers: user.bearer, body: { status: 'paused' } })
  t.same([paused.body.status, paused.body.nextRunAt], ['paused', null])
  const notActive = await svc.api('POST', `/content-monitors/${id}/runs`, { headers: user.bearer, body: {} })
  t.equal(notActive.status, 409)
  t.same(notActive.body, { detail: 'monitor_not_active' })
  const active = await svc.api('PATCH', `/content-monitors/${id}`, { headers: user.bearer, body: { status: 'active' } })
  t.equal(active.body.status, 'active')
  t.not(active.body.nextRunAt, null)
})

t.test('50 active monitors per user, race-safe: 55 concurrent creates leave exactly 50', async (t) => {
  const user = await signUp(svc)
  const answers = await Promise.all(Array.from({ length: 55 }, (_, i) => create(user, monitorBody({ name: `m${i}` }))))
  t.equal(answers.filter((a) => a.status === 201).length, 50)
  const refused = answers.filter((a) => a.status !== 201)
  t.equal(refused.length, 5)
  for (const answer of refused) {
    t.equal(answer.status, 422)
    t.equal(answer.body.detail, 'monitor_limit_reached')
  }
  await waitFor(async () => (await svc.api('GET', '/content-monitors?status=active&perPage=100', { headers: user.bearer })).body.total === 50)
  const one = answers.find((a) => a.status === 201)!.body.id
  t.equal((await svc.api('PATCH', `/content-monitors/${one}`, { headers: user.bearer, body: { status: 'paused' } })).status, 200)
  const another = await create(user, monitorBody())
  t.equal(another.status, 201, 'pausing one frees a place')
  const back = await svc.api('PATCH', `/content-monitors/${one}`, { headers: user.bearer, body: { status: 'active' } })
  t.equal(back.status, 422)
  t.equal(back.body.detail, 'monitor_limit_reached')
  t.equal((await svc.api('GET', `/content-monitors/${one}`, { headers: user.bearer })).body.status, 'paused', 'a refused activation changes nothing')
})

t.test('runs: forced runs now with before/after snapshots; an edge triggers once', async (t) => {
  watched = '<html><body><p>Out of stock</p></body></html>'
  const user = await signUp(svc)
  const { id } = (await create(user, monitorBody({ rule: { type: 'text_appeared', config: { needle: 'in stock' } } }))).body
  const first = await forceRun(user, id)
  t.equal(first.status, 'succeeded')
  t.equal(first.snapshotBefore, null)
  t.match(first.snapshotAfter, { statusCode: 200, preview: 'Out of stock', hash: /^n\d+:/ })
  t.equal(first.scrapeId, first.id)
  watched = '<html><body><p>Now in stock!</p></body></html>'
  const second = await forceRun(user, id)
  t.same([second.status, second.changeDetected, second.changeSummary], ['triggered', true, '"in stock" appeared'])
  t.same(second.snapshotBefore, first.snapshotAfter)
  t.equal(second.snapshotAfter.preview, 'Now in stock!')
  const third = await forceRun(user, id)
  t.same([third.status, third.changeDetected], ['succeeded', false], 'still present: no second alert')
  const listed = await runs(user, id, 2)
  t.same(listed.body.runs.map((r: any) => r.id), [third.id, second.id], 'newest first, limit honoured')
  t.same([listed.body.monitor.lastChangeSummary, listed.body.monitor.lastSnapshot.preview], ['"in stock" appeared', 'Now in stock!'])
  t.ok(listed.body.monitor.lastRunAt)
  t.equal((await runs(user, id, 0)).status, 422)
  t.equal((await runs(user, id, 101)).status, 422)
})

t.test('a run without force is the next scheduled one, pending, the same however often asked', async (t) => {
  const user = await signUp(svc)
  const { id, nextRunAt } = (await create(user, monitorBody())).body
  const a = await svc.api('POST', `/content-monitors/${id}/runs`, { headers: user.bearer, body: { force: false } })
  const b = await svc.api('POST', `/content-monitors/${id}/runs`, { headers: user.bearer })
  t.equal(a.status, 201)
  t.same([a.body.status, a.body.scheduledAt, a.body.startedAt], ['pending', nextRunAt, null])
  t.equal(b.body.id, a.body.id)
  t.equal((await svc.api('POST', `/content-monitors/${id}/runs`, { headers: user.bearer, body: { force: 'yes' } })).status, 422)
})

t.test('consecutive failures: disabled after 5 with an e-mail; lastErrorCode and lastErrorMessage explain', async (t) => {
  const user = await signUp(svc)
  const { id } = (await create(user, monitorBody({ url: `http://127.0.0.1:${closedPort}/` }))).body
  for (let i = 1; i <= 5; i++) {
    const run = await forceRun(user, id)
    t.equal(run.status, 'failed')
    t.equal(run.errorCode, 'network_error')
  }
  await waitFor(async () => (await svc.api('GET', `/content-monitors/${id}`, { headers: user.bearer })).body.status === 'disabled')
  const monitor = (await svc.api('GET', `/content-monitors/${id}`, { headers: user.bearer })).body
  t.same([monitor.status, monitor.consecutiveFailures, monitor.lastErrorCode, monitor.nextRunAt], ['disabled', 5, 'network_error', null])
  t.type(monitor.lastErrorMessage, 'string')
  await waitFor(() => outboxMessages(svc.dataDir).some((m) => m.headers.to?.includes(user.email) && /disabled/.test(m.headers.subject ?? '')), 10_000)
  const mail = outboxMessages(svc.dataDir).find((m) => m.headers.to?.includes(user.email) && /disabled/.test(m.headers.subject ?? ''))!
  t.match(mail.text, /failed 5 times in a row/)
})

t.test('a run failed after the target answered keeps its status; a skipped run\'s reason stays off the monitor\'s last error', async (t) => {
  const user = await signUp(svc)
  const huge = (await create(user, monitorBody({ url: `${site.origin}/huge` }))).body.id
  const tooLarge = await forceRun(user, huge)
  t.same([tooLarge.status, tooLarge.errorCode, tooLarge.statusCode, tooLarge.snapshotAfter], ['failed', 'response_too_large', 200, null])
  const failing = (await svc.api('GET', `/content-monitors/${huge}`, { headers: user.bearer })).body
  t.same([failing.lastErrorCode, failing.consecutiveFailures], ['response_too_large', 1])

  // Two runs held by a slow page fill the free plan's two concurrent jobs: a third run is skipped, at no cost.
  for (let i = 0; i < 2; i++) {
    const { id } = (await create(user, monitorBody({ url: `${site.origin}/held` }))).body
    t.equal((await svc.api('POST', `/content-monitors/${id}/runs`, { headers: user.bearer, body: { force: true } })).status, 201)
  }
  await waitFor(() => held.length === 2, 20_000)
  const watching = (await create(user, monitorBody())).body.id
  const skipped = await forceRun(user, watching)
  t.same([skipped.status, skipped.errorCode, skipped.startedAt], ['skipped', 'plan_limit_concurrent_jobs', null])
  const monitor = (await svc.api('GET', `/content-monitors/${watching}`, { headers: user.bearer })).body
  t.same([monitor.lastErrorCode, monitor.lastErrorMessage, monitor.consecutiveFailures], [null, null, 0], 'a skip is not an error of the monitor')
  for (const res of held.splice(0)) { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<html><body>late</body></html>') }
})
