import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Effect } from 'effect'
import { MAX_TAG_LENGTH } from '../../domain/job/spec.js'
import { SUBSCRIBABLE_KINDS } from '../../domain/webhook/kinds.js'
import { DEFAULT_RECIPES_DIR, loadRecipeCatalogue } from '../../infra/recipes.js'
import { EventStore, type RecordedEvent } from '../../ports/event-store.js'
import { startFixtureSite } from '../fixtures/site.js'
import { fixturesOf } from '../helpers/recipe-fixtures.js'
import { startRecipeSite } from '../helpers/recipe-site.js'
import { startService, waitFor } from '../helpers/service.js'
import { tenant } from '../helpers/tenant.js'
import { startReceiver } from '../helpers/webhook-receiver.js'

/**
 * Organization B sends every forged marker through every entry point that creates work: the service's old tag and
 * token prefixes naming A's user, monitors and runs, their case and whitespace variants, and A's bare ids. Each
 * reaches nothing but B's own work: A's scrapes, monitors, changes, usage and webhooks are untouched, A's runs end
 * with their own jobs, B is charged for plain work of its engine, and tags and tokens come back exactly as given.
 * The event log then shows every event of A's aggregates stamped with A's organization, and every job an aggregate
 * of A acted on being A's own job.
 */
const SLUG = 'js-package'
const recipe = loadRecipeCatalogue(DEFAULT_RECIPES_DIR).get(SLUG)!
const recipeFixture = fixturesOf(SLUG).find((f) => f.name === 'ok')!
const site = await startFixtureSite()
const recipeSite = await startRecipeSite(recipe.hosts)
recipeSite.use(recipeFixture)
const receiverOfA = await startReceiver()
const receiverOfB = await startReceiver()
const svc = await startService({
  allowlist: [`127.0.0.1:${site.port}`, `127.0.0.1:${recipeSite.port}`, receiverOfA.allowlistEntry, receiverOfB.allowlistEntry],
  env: { LOGIN_ATTEMPTS_PER_MINUTE: '1000', SCRAPES_PER_MINUTE: '1000', RECIPE_ORIGIN_OVERRIDES: recipeSite.overrides },
})
t.teardown(async () => { await svc.close(); await site.close(); await recipeSite.close(); await receiverOfA.close(); await receiverOfB.close() })

const a = await tenant(svc)
const b = await tenant(svc)
// The attacker's second organization runs the recipes: an organization's idempotency tokens are one namespace across
// jobs and recipe runs (a recipe run with a token B's plain job used answers that job), and both must be tried.
const b2 = await tenant(svc)

const until = (what: string, condition: () => Promise<boolean>, ms = 120_000) =>
  waitFor(condition, ms, 50).catch(() => { throw new Error(`${what} did not happen in time`) })
const expect = async (answer: Promise<{ status: number; body: any }>, status: number) => {
  const { status: got, body } = await answer
  if (got !== status) throw new Error(`expected ${status}, got ${got}: ${JSON.stringify(body)}`)
  return body
}
const readLog = () => svc.run(Effect.flatMap(EventStore, (store) => store.readAll(0, 1_000_000))) as Promise<readonly RecordedEvent[]>

// A's work, some of it in flight (slow pages) while B's forgeries run.
await expect(svc.api('POST', '/v1/webhook-endpoints', { key: a.key, body: { url: receiverOfA.url, enabled_events: SUBSCRIBABLE_KINDS } }), 201)
await expect(svc.api('POST', '/v1/webhook-endpoints', { key: b.key, body: { url: receiverOfB.url, enabled_events: SUBSCRIBABLE_KINDS, description: `monitor-run:${a.orgId}` } }), 201)
const scrapeOfA = await expect(svc.api('POST', '/scrapes', { headers: a.user.bearer, body: { url: `${site.origin}/page`, backend: 'httpx' } }), 200)
const monitorOfA = await expect(svc.api('POST', '/v1/monitors', {
  key: a.key, body: { name: 'a', cron: '0 3 * * *', job_type: 'light', target_url: `${site.origin}/slow?ms=5000`, detection: { mode: 'text', notify: { email: ['owner-a@example.com'] } } },
}), 201)
const runOfA = await expect(svc.api('POST', `/v1/monitors/${monitorOfA.id}/runs`, { key: a.key }), 202)
const contentMonitorOfA = await expect(svc.api('POST', '/content-monitors', {
  headers: a.user.bearer, body: { url: `${site.origin}/slow?ms=5000`, backend: 'httpx', frequencyMinutes: 60, rule: { type: 'any_change', config: {} } },
}), 201)
const contentRunOfA = await expect(svc.api('POST', `/content-monitors/${contentMonitorOfA.id}/runs`, { headers: a.user.bearer, body: { force: true } }), 201)
const runJobOfA = async () => {
  await until('A\'s run has a job', async () => ((await svc.api('GET', `/v1/monitors/${monitorOfA.id}/runs`, { key: a.key })).body.items as any[])
    .some((run) => run.run_id === runOfA.run_id && run.job_id))
  return ((await svc.api('GET', `/v1/monitors/${monitorOfA.id}/runs`, { key: a.key })).body.items as any[]).find((run) => run.run_id === runOfA.run_id).job_id as string
}
const runJobIdOfA = await runJobOfA()
// A token A's own job holds: the same token from B is B's own job, never A's answered back.
const tokenOfA = 'order-42'
const tokenJobOfA = await expect(svc.api('POST', '/v1/jobs', { key: a.key, body: { job_type: 'light', target_url: `${site.origin}/page`, idempotency_token: tokenOfA } }), 202)
await svc.waitForResult(a.key, tokenJobOfA.job_id)
const usageOf = async (key: string) => (await svc.api('GET', '/v1/usage', { key })).body.credits_used as number
const usageOfABefore = await usageOf(a.key)
const scrapesOfABefore = (await svc.api('GET', '/scrapes', { headers: a.user.bearer })).body

/** Every forged marker: the old prefixes naming A's things, their case and whitespace variants, and A's bare ids. */
const markers = [
  `scrape-by:${a.user.userId}`,
  `content-monitor:${contentMonitorOfA.id}`,
  `monitor-run:${monitorOfA.id}:${runOfA.run_id}`,
  `monitor-run:${monitorOfA.id}:${runJobIdOfA}`,
  `recipe:${SLUG}`,
]
const titleCase = (marker: string) => marker.replace(/^[^:]+/, (prefix) => prefix.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => `${dash}${c.toUpperCase()}`))
const forged = [...new Set([
  ...markers.flatMap((m) => [m, m.toUpperCase(), titleCase(m), ` ${m}`, `${m} `, `\u00a0${m}`, m.replace(':', ' :'), m.replace(':', ': ')]),
  a.orgId, a.user.userId, monitorOfA.id, runOfA.run_id, runJobIdOfA, contentMonitorOfA.id, contentRunOfA.id, scrapeOfA.id, tokenOfA,
  `idempotency:${a.orgId}:${tokenOfA}`, `natural:monitor-run:${monitorOfA.id}:${runOfA.run_id}`,
])]

// B's work, through every entry point, carrying the forgeries.
const jobs: { readonly via: string; readonly jobId: string; readonly tags?: readonly string[]; readonly token?: string; readonly by?: typeof b2; readonly credits?: number }[] = []
const submitted = await Promise.all([
  ...forged.filter((tag) => tag.length <= MAX_TAG_LENGTH).map(async (tag) => ({ via: 'POST /v1/jobs tags', tags: [tag, 'env=test'],
    jobId: (await expect(svc.api('POST', '/v1/jobs', { key: b.key, body: { job_type: 'light', target_url: `${site.origin}/status?code=403`, tags: [tag, 'env=test'] } }), 202)).job_id as string })),
  ...forged.map(async (token) => ({ via: 'POST /v1/jobs idempotency_token', token,
    jobId: (await expect(svc.api('POST', '/v1/jobs', { key: b.key, body: { job_type: 'light', target_url: `${site.origin}/status?code=404`, idempotency_token: token } }), 202)).job_id as string })),
  ...forged.map(async (token) => ({ via: 'POST /v1/recipes/{slug}/runs idempotency_token', token, by: b2,
    jobId: (await expect(svc.api('POST', `/v1/recipes/${SLUG}/runs`, { key: b2.key, body: { input: recipeFixture.input, idempotency_token: token } }), 201)).job_id as string })),
  // The browser engines, with the forgeries of a scrape and a monitor run: charged their own weight, page or not.
  ...([['standard', 5], ['stealth', 30]] as const).flatMap(([engine, credits]) => [
    { via: 'POST /v1/jobs tags', tags: [markers[0]!] },
    { via: 'POST /v1/jobs idempotency_token', token: `${markers[2]!} ${engine}` },
  ].map(async (forgery) => ({ ...forgery, credits,
    jobId: (await expect(svc.api('POST', '/v1/jobs', { key: b.key, body: { job_type: engine, target_url: `${site.origin}/page`, ...forgery.tags ? { tags: forgery.tags } : {}, ...forgery.token ? { idempotency_token: forgery.token } : {} } }), 202)).job_id as string }))),
])
jobs.push(...submitted)
// A scrape's only free text is its URL; it waits for its page, so a sample: the scrape-by and content-monitor forms.
for (const marker of forged.slice(0, 12)) {
  const scrape = await expect(svc.api('POST', '/scrapes', { headers: b.user.bearer, body: { url: `${site.origin}/page?m=${encodeURIComponent(marker)}`, backend: 'httpx' } }), 200)
  jobs.push({ via: 'POST /scrapes', jobId: scrape.id })
}
const contentMonitorsOfB: string[] = []
for (const marker of markers) {
  const created = await expect(svc.api('POST', '/content-monitors', {
    headers: b.user.bearer, body: { name: marker, url: `${site.origin}/page?m=${encodeURIComponent(marker)}`, backend: 'httpx', frequencyMinutes: 60, rule: { type: 'any_change', config: {} } },
  }), 201)
  contentMonitorsOfB.push(created.id)
  await expect(svc.api('POST', `/content-monitors/${created.id}/runs`, { headers: b.user.bearer, body: { force: true } }), 201)
}
const tagsOfB = forged.filter((tag) => tag.length <= MAX_TAG_LENGTH).slice(0, 50)
const monitorOfB = await expect(svc.api('POST', '/v1/monitors', {
  key: b.key, body: { name: markers[2], cron: '0 3 * * *', job_type: 'light', target_url: `${site.origin}/status?code=403`, tags: tagsOfB, detection: { mode: 'text' } },
}), 201)
for (let i = 0; i < 3; i++) {
  const fired = await expect(svc.api('POST', `/v1/monitors/${monitorOfB.id}/runs`, { key: b.key }), 202)
  await until(`B's run ${i} ends`, async () => ((await svc.api('GET', `/v1/monitors/${monitorOfB.id}/runs`, { key: b.key })).body.items as any[])
    .some((run) => run.run_id === fired.run_id && ['delivered', 'blocked', 'failed', 'error'].includes(run.status)))
}
const pingOfB = await svc.api('POST', `/v1/webhook-endpoints/${(await svc.api('GET', '/v1/webhook-endpoints', { key: b.key })).body.items[0].endpoint_id}/test`, { key: b.key })
for (const job of jobs) await svc.waitForResult((job.by ?? b).key, job.jobId, 180_000)

// A's own work ends.
await until('A\'s run ends', async () => ((await svc.api('GET', `/v1/monitors/${monitorOfA.id}/runs`, { key: a.key })).body.items as any[])
  .some((run) => run.run_id === runOfA.run_id && run.status !== 'minted' && run.status !== 'pending'))
await until('A\'s content monitor run ends', async () => ((await svc.api('GET', `/content-monitors/${contentMonitorOfA.id}/runs`, { headers: a.user.bearer })).body.runs as any[])
  .every((run) => !['pending', 'running'].includes(run.status)))
await until('every charge is in the ledgers', async () => {
  const log = await readLog()
  const charged = (org: string) => log.filter((e) => e.type === 'CreditsCharged' && e.org_id === org).reduce((sum, e) => sum + (e.data.credits as number), 0)
  return (await usageOf(a.key)) === charged(a.orgId) && (await usageOf(b.key)) === charged(b.orgId) && (await usageOf(b2.key)) === charged(b2.orgId)
})
await until('webhooks are delivered', async () => receiverOfB.received.some((r) => r.event.type === 'ping')
  && receiverOfA.received.some((r) => r.event.type === 'job.completed' && r.event.data.job_id === runJobIdOfA))
const log = await readLog()
const requested = new Map(log.filter((e) => e.type === 'JobRequested').map((e) => [e.data.job_id as string, e]))
const charges = log.filter((e) => e.type === 'CreditsCharged')

t.test('B\'s forgeries were all admitted as B\'s work', async (t) => {
  t.equal(pingOfB.status, 202, 'B pinged its endpoint')
  t.ok(jobs.length > 100, `${jobs.length} jobs of B`)
  for (const job of jobs) t.equal(requested.get(job.jobId)?.org_id, (job.by ?? b).orgId, `${job.via}: ${job.jobId} is B's`)
})

t.test('each of B\'s jobs is plain work of its kind, charged to B at its engine\'s weight', async (t) => {
  const expected: Record<string, (job: RecordedEvent) => unknown> = {
    'POST /v1/jobs tags': () => ({ _tag: 'api' }),
    'POST /v1/jobs idempotency_token': () => ({ _tag: 'api' }),
    'POST /v1/recipes/{slug}/runs idempotency_token': (request) => {
      const { contract, impl } = request.data.origin as { contract: number; impl: number }
      return { _tag: 'recipe_run', slug: SLUG, contract, impl }
    },
    'POST /scrapes': () => ({ _tag: 'scrape', user_id: b.user.userId }),
  }
  const reasons: Record<string, string> = {
    'POST /v1/jobs tags': 'job_succeeded', 'POST /v1/jobs idempotency_token': 'job_succeeded',
    'POST /v1/recipes/{slug}/runs idempotency_token': 'recipe_units', 'POST /scrapes': 'job_succeeded',
  }
  for (const job of jobs) {
    const request = requested.get(job.jobId)!
    t.same(request.data.origin, expected[job.via]!(request), `${job.via} ${JSON.stringify(job.tags ?? job.token)}: origin`)
    const charged = charges.filter((e) => e.data.job_id === job.jobId)
    const org = (job.by ?? b).orgId
    t.same(charged.map((e) => [e.org_id, e.data.org_id, e.data.credits, e.data.reason]), [[org, org, job.credits ?? 1, reasons[job.via]]], `${job.via} ${JSON.stringify(job.tags ?? job.token)}: one charge to B`)
  }
  for (const monitorId of contentMonitorsOfB) {
    const runs = log.filter((e) => e.type === 'JobRequested' && (e.data.origin as any)._tag === 'content_monitor_run' && (e.data.origin as any).monitor_id === monitorId)
    t.equal(runs.length, 1, 'B\'s content monitor ran once, as its own')
    t.ok(runs.every((e) => e.org_id === b.orgId), 'in B\'s organization')
  }
  const monitorRuns = log.filter((e) => e.type === 'JobRequested' && (e.data.origin as any).monitor_id === monitorOfB.id)
  t.equal(monitorRuns.length, 3, 'B\'s monitor ran three times, as its own')
  t.ok(monitorRuns.every((e) => e.org_id === b.orgId && (e.data.origin as any)._tag === 'monitor_run'), 'monitor runs of B')
  t.ok(monitorRuns.every((e) => JSON.stringify((e.data.spec as any).tags) === JSON.stringify(tagsOfB)), 'its runs carry its tags as given')
})

t.test('tags and tokens come back exactly as given', async (t) => {
  for (const job of jobs.filter((j) => j.tags || j.token)) {
    const view = (await svc.api('GET', `/v1/jobs/${job.jobId}`, { key: (job.by ?? b).key })).body
    if (job.tags) t.same(view.tags, job.tags, `${job.via}: ${JSON.stringify(job.tags)}`)
    if (job.token) t.equal(view.idempotency_token, job.token, `${job.via}: ${JSON.stringify(job.token)}`)
  }
  const monitor = (await svc.api('GET', `/v1/monitors/${monitorOfB.id}`, { key: b.key })).body
  t.same(monitor.tags, tagsOfB, 'the monitor\'s tags')
  t.equal(monitor.name, markers[2], 'the monitor\'s name')
})

t.test('nothing of B reaches A', async (t) => {
  const scrapes = (await svc.api('GET', '/scrapes', { headers: a.user.bearer })).body
  t.same(scrapes, scrapesOfABefore, 'A\'s scrapes are as before')
  const run = ((await svc.api('GET', `/v1/monitors/${monitorOfA.id}/runs`, { key: a.key })).body.items as any[]).find((r) => r.run_id === runOfA.run_id)
  t.equal(run.status, 'delivered', 'A\'s run delivered A\'s page')
  t.equal(run.job_id, runJobIdOfA, 'with its own job')
  t.equal(((await svc.api('GET', `/v1/monitors/${monitorOfA.id}/runs`, { key: a.key })).body.items as any[]).length, 1, 'A\'s monitor ran once')
  const monitor = (await svc.api('GET', `/v1/monitors/${monitorOfA.id}`, { key: a.key })).body
  t.equal(monitor.status, 'active', 'B\'s blocked forgeries do not pause A\'s monitor')
  t.equal((await svc.api('GET', `/v1/monitors/${monitorOfA.id}/changes`, { key: a.key })).body.total, 0, 'no change of A\'s monitor (its one run is the baseline)')
  const outbox = join(svc.dataDir, 'outbox')
  const mails = existsSync(outbox) ? readdirSync(outbox).map((name) => readFileSync(join(outbox, name), 'utf8')) : []
  // B's monitor is named after A's run: only its links (and recipients) tell whose it is.
  t.same(mails.filter((mail) => mail.includes(`/monitors/${monitorOfA.id}/`) || mail.includes('owner-a@example.com')).map((mail) => mail.slice(0, 500)), [], 'no e-mail about A\'s monitor (it has no change, and is not paused)')
  t.same(mails.filter((mail) => mail.includes(`To: ${a.user.email}`) && mail.includes(monitorOfB.id)).map((mail) => mail.slice(0, 500)), [], 'no e-mail to A about B\'s monitor')
  t.ok(mails.some((mail) => mail.includes(`To: ${b.user.email}`) && mail.includes(`/monitors/${monitorOfB.id}/resume`)), 'B\'s paused monitor is mailed to B')
  const contentRuns = (await svc.api('GET', `/content-monitors/${contentMonitorOfA.id}/runs`, { headers: a.user.bearer })).body.runs as any[]
  t.same(contentRuns.map((r) => r.id), [contentRunOfA.id], 'A\'s content monitor has its one run')
  const ownJobsOfA = new Set([...requested.values()].filter((e) => e.org_id === a.orgId).map((e) => e.data.job_id as string))
  t.same([scrapeOfA.id, runJobIdOfA, contentRunOfA.id].filter((id) => !ownJobsOfA.has(id)), [], 'A\'s jobs are A\'s')
  const chargedToA = charges.filter((e) => e.org_id === a.orgId || e.data.org_id === a.orgId)
  t.same(chargedToA.filter((e) => !ownJobsOfA.has(e.data.job_id as string)).map((e) => e.data.job_id), [], 'A is charged for its own jobs only')
  const usage = await usageOf(a.key)
  t.ok(usage > usageOfABefore, 'A\'s own runs were charged')
  t.equal(usage, chargedToA.reduce((sum, e) => sum + (e.data.credits as number), 0), 'A\'s usage is the sum of its own jobs\' charges')
})

t.test('each organization\'s endpoint hears only of its own work', async (t) => {
  const jobOrg = (jobId: unknown) => typeof jobId === 'string' ? requested.get(jobId)?.org_id : undefined
  const monitorOrg = new Map(log.filter((e) => e.type === 'MonitorCreated').map((e) => [e.data.monitor_id as string, e.org_id]))
  for (const [receiver, org, name] of [[receiverOfA, a.orgId, 'A'], [receiverOfB, b.orgId, 'B']] as const) {
    t.ok(receiver.received.length > 0, `${name}'s endpoint heard something`)
    for (const { event } of receiver.received) {
      const data = event.data as Record<string, unknown>
      if (data.job_id !== undefined) t.equal(jobOrg(data.job_id), org, `${name} hears of ${event.type} of its own job`)
      if (typeof data.monitor_id === 'string') t.equal(monitorOrg.get(data.monitor_id), org, `${name} hears of ${event.type} of its own monitor`)
    }
  }
})

t.test('every event of an aggregate carries its organization; every job an aggregate of A acted on is its own', async (t) => {
  const orgsOf = new Map<string, Set<string>>()
  for (const e of log) orgsOf.set(e.stream, (orgsOf.get(e.stream) ?? new Set()).add(e.org_id))
  const mixed = [...orgsOf].filter(([, orgs]) => orgs.size > 1).map(([stream, orgs]) => `${stream}: ${[...orgs].join(', ')}`)
  t.same(mixed, [], 'no stream holds events of two organizations')
  const streamsOfA = log.filter((e) => e.revision === 0 && e.org_id === a.orgId).map((e) => e.stream)
  for (const id of [monitorOfA.id, contentMonitorOfA.id, scrapeOfA.id, runJobIdOfA, contentRunOfA.id]) {
    t.ok(streamsOfA.some((stream) => stream.endsWith(`-${id}`)), `A's aggregate ${id} is among A's streams`)
  }
  const inA = log.filter((e) => streamsOfA.includes(e.stream))
  t.same(inA.filter((e) => e.org_id !== a.orgId).map((e) => `${e.stream} ${e.type} ${e.org_id}`), [], 'every event in A\'s streams carries A\'s org_id')
  // A job an aggregate of A records (a run's job, a scrape's job) is A's, minted for that aggregate.
  const originOf = (jobId: string) => requested.get(jobId)?.data.origin as any
  for (const e of inA.filter((e) => typeof e.data.job_id === 'string' && !e.stream.startsWith('job-') && !e.stream.startsWith('webhook-'))) {
    const jobId = e.data.job_id as string
    t.equal(requested.get(jobId)?.org_id, a.orgId, `${e.stream} ${e.type}: job ${jobId} is A's`)
    const origin = originOf(jobId)
    if (e.stream.startsWith('monitor-')) t.same([origin?._tag, origin?.monitor_id, origin?.run_id], ['monitor_run', e.data.monitor_id, e.data.run_id], `${e.type}: the run's own job`)
    if (e.stream.startsWith('content-monitor-')) t.same([origin?._tag, origin?.monitor_id], ['content_monitor_run', contentMonitorOfA.id], `${e.type}: the monitor's own job`)
    if (e.stream.startsWith('scrape-')) t.same(origin, { _tag: 'scrape', user_id: a.user.userId }, `${e.type}: A's user's own scrape`)
  }
  // A content monitor's run is its job (the job id is the run id): any job of that id is the monitor's own run.
  const contentRuns = inA.filter((e) => e.stream.startsWith('content-monitor-') && typeof e.data.run_id === 'string')
  t.ok(contentRuns.some((e) => e.data.run_id === contentRunOfA.id), 'A\'s content monitor recorded its run')
  for (const e of contentRuns.filter((e) => requested.has(e.data.run_id as string))) {
    const job = requested.get(e.data.run_id as string)!
    t.same([job.org_id, job.data.origin], [a.orgId, { _tag: 'content_monitor_run', monitor_id: e.data.monitor_id, run_id: e.data.run_id }], `${e.type}: the run's own job`)
  }
})
