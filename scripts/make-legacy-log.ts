/**
 * Writes test/fixtures/legacy-log/: an event log recorded by the real embedded service (manual clock, local fixture
 * site, a one-file recipe catalogue) through every entry point that creates a job, and the documents each projection
 * builds from it applied one event at a time. The fixture is data for replay tests: a later event schema must replay
 * this log to the same read models. `node --import tsx scripts/make-legacy-log.ts` (re-running it writes new ids).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Effect } from 'effect'
import { makeManualClock } from '../infra/clock/manual.js'
import { ReadModels } from '../infra/read-models.js'
import { DocumentStore, type Doc } from '../ports/document-store.js'
import { EventStore, type RecordedEvent } from '../ports/event-store.js'
import { startFixtureSite } from '../test/fixtures/site.js'
import { signUp } from '../test/helpers/account.js'
import { LEGACY_LOG_DIR as OUT_DIR, projectEvery } from '../test/helpers/legacy-log.js'
import { portNothingListensOn, startService, waitFor } from '../test/helpers/service.js'
import { startReceiver } from '../test/helpers/webhook-receiver.js'

const step = (what: string) => process.stderr.write(`- ${what}\n`)
const expect = (what: string, condition: boolean, detail?: unknown) => {
  if (!condition) throw new Error(`${what}: ${JSON.stringify(detail)}`)
}

const sortedById = (documents: readonly Doc[]) => [...documents].sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0))

const countBy = <A>(items: readonly A[], keyOf: (item: A) => string) => {
  const counts = new Map<string, number>()
  for (const item of items) counts.set(keyOf(item), (counts.get(keyOf(item)) ?? 0) + 1)
  return new Map([...counts].sort(([a], [b]) => a.localeCompare(b)))
}

/** What marks a JobRequested's origin in today's schema (no `origin` field yet): a recipe block, a tag or a token. */
const markerOf = (event: RecordedEvent): string => {
  const spec = event.data.spec as { tags: string[]; idempotency_token?: string; recipe?: unknown }
  const tag = (prefix: string) => spec.tags.some((t) => t.startsWith(prefix))
  if (spec.recipe !== undefined) return 'recipe block (tag `recipe:<slug>`)'
  if (tag('scrape-by:')) return 'tag `scrape-by:<user>`'
  if (tag('content-monitor:')) return 'tag `content-monitor:<id>`'
  if (spec.idempotency_token?.startsWith('monitor-run:')) return 'token `monitor-run:<monitor>:<run>`'
  if (spec.idempotency_token !== undefined) return 'customer token (plain API)'
  return 'none (plain API)'
}

const table = (heading: string, counts: ReadonlyMap<string, number>) =>
  [`| ${heading} | count |`, '|---|---|', ...[...counts].map(([name, count]) => `| ${name} | ${count} |`)].join('\n')

const readme = (total: number, byType: ReadonlyMap<string, number>, byMarker: ReadonlyMap<string, number>) => `# Legacy event log

An event log recorded by the code of commit 8e97c6d (before JobRequested had an \`origin\` and before charges were
events), and the documents every projection of \`projections/index.ts\` built from it. Replay tests feed
\`events.json\` to today's projections (upcasting on read) and compare with \`read-models.json\`.

Made by \`node --import tsx scripts/make-legacy-log.ts\` at 8e97c6d: the real embedded service (SQLite, egress gateway,
light engine) on a manual clock starting 2026-05-01T10:00:30Z, a local fixture site, a two-recipe catalogue (light:
\`legacy-items\` billed per run, \`legacy-pages\` billed per page) whose origin maps to the fixture site. Ids, ports
and times are what that run produced; re-running the script writes a different (equivalent) log, so the files are
committed as data.

- \`events.json\`: every recorded event (\`RecordedEvent\` of \`ports/event-store.ts\`: position, event_id, stream,
  revision, type, org_id, occurred_at, data, metadata), in position order, as the store holds them.
- \`read-models.json\`: by projection name, then collection, the documents \`project()\` of
  \`test/helpers/projection-spec.ts\` leaves after applying the projection's events (those of its stream categories,
  as \`specHistories()\` selects them) one at a time in log order on the in-memory document store
  (\`projectEvery\` of \`test/helpers/legacy-log.ts\`). The script checked they are the documents the live service's
  projectors built (every projection but the audit trail's, which the SQLite store serves from its log).
  \`test/unit/legacy-log-replay.test.ts\` replays the log through today's projections and expects these documents.

## What the history covers

Through the real entry points, one pro organization with an API key, a webhook endpoint (job.completed,
schedule.change_detected, schedule.run_skipped) answering 200 and a retention policy with legal holds on:

- plain v1 jobs (POST /v1/jobs): a succeeded page, a target answering 500 (failed, upstream_error), an unreachable
  target (failed, network_error), one with the customer idempotency token \`order-42\` and tags \`shop\`, \`nightly\`
  (asked twice: one job) under a legal hold, and one with tag \`to-delete\` deleted (DELETE /v1/jobs/{id}:
  JobDeletionRequested, then the purger's JobPurged, ArtifactPurged, ArtifactBlobDeleted);
- a user's scrapes (account API POST /scrapes, job tagged \`scrape-by:<user>\`, no API key): one succeeded, one failed
  (unreachable);
- a content monitor (account API, jobs tagged \`content-monitor:<id>\`): two forced runs, the second detecting a change,
  then a scheduled run an hour after its creation; paused by its user at the end;
- v1 monitors (POST /v1/monitors, jobs with token \`monitor-run:<monitor>:<run>\`, customer tag \`watch\`): one with
  text detection delivering scheduled runs and one run-now, the second seeing the price change; one whose
  target answers 403 (three blocked runs, not charged, then paused for failures); one with a slow target and
  overlap policy \`skip\`, whose second instant is skipped (MonitorFireOverlapped), deleted afterwards;
- recipe runs (POST /v1/recipes/{slug}/runs, a recipe block, tag \`recipe:<slug>\`): \`legacy-items\` (billed per run)
  once \`ok\` (1 credit) and once \`schema_invalid\` (not billed); \`legacy-pages\` (billed per page, max_pages 5
  reserved) reading three pages, with the customer idempotency token \`recipe-order-7\`.

Not covered: crawl pages (today's code has none), stealth/standard browser jobs, skipped_quota runs, recipe health.

## Counts (${total} events)

${table('event type', byType)}

JobRequested by the marker that tells its origin today (the first that applies, in this order: recipe block,
\`scrape-by:\` tag, \`content-monitor:\` tag, \`monitor-run:\` token, another token; the page-billed recipe run also
carries the customer token \`recipe-order-7\`):

${table('marker', byMarker)}
`

let watched = '<html><body><p>Out of stock</p></body></html>'
let price = '<html><body><h1>Widget</h1><p class="price">19.99</p></body></html>'
const site = await startFixtureSite({
  '/watched': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(watched) },
  '/price': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(price) },
  // Two items a page up to page 2, then one: a page-billed recipe reads three pages.
  '/paged': (_req, res, url) => {
    const page = Number(url.searchParams.get('page'))
    const items = Array.from({ length: page <= 2 ? 2 : page === 3 ? 1 : 0 }, (_, i) => ({ id: page * 10 + i, text: `p${page}` }))
    res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify(items))
  },
  '/items': (_req, res, url) => {
    const broken = url.searchParams.get('broken') === 'true'
    const items = [{ id: 1, text: 'one' }, { id: broken ? 'two' : 2, text: 'two' }]
    res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ items }))
  },
})
const closedPort = await portNothingListensOn()
const receiver = await startReceiver()

// Two light recipes, their origin mapped to the fixture site: one billed per run, one per page read.
const recipesDir = mkdtempSync(join(tmpdir(), 'legacy-log-recipes-'))
const itemsSchema = {
  type: 'object', additionalProperties: false, required: ['items'], properties: {
    items: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['id', 'text'], properties: { id: { type: 'integer' }, text: { type: 'string' } } } },
  },
}
const itemFields = { id: { locators: [{ jsonpath: '$.id' }] }, text: { locators: [{ jsonpath: '$.text' }] } }
const writeRecipe = (slug: string, billing: Record<string, unknown>, inputProperties: Record<string, unknown>, implementation: Record<string, unknown>) =>
  writeFileSync(join(recipesDir, `${slug}.json`), JSON.stringify({
    slug, title: `Items (${slug})`, category: 'Test', status: 'beta', hosts: ['https://items.example.test'],
    contracts: [{
      contract: 1, engine: 'light', multiplier: 1, credits_per_unit: 1, billing,
      input_schema: { type: 'object', additionalProperties: false, properties: inputProperties },
      output_schema: itemsSchema,
      example: { input: {}, output: { items: [{ id: 1, text: 'one' }] } },
      implementation: { impl: 1, assertions: [], output: { items: '$extract.items' }, ...implementation },
    }],
  }))
writeRecipe('legacy-items', { unit: 'run' }, { broken: { type: 'boolean' } }, {
  steps: [{ request: { url: 'https://items.example.test/items', query: { broken: '{input.broken}' } } }],
  extract: { items: { each: [{ jsonpath: '$.items[*]' }], fields: itemFields } },
})
writeRecipe('legacy-pages', { unit: 'page', per: '2 items' }, {}, {
  steps: [{ paginate: { url: 'https://items.example.test/paged', query: { page: '{page}' }, start: 1, items: [{ jsonpath: '$[*]' }], page_size: 2 } }],
  extract: { items: { each: [{ jsonpath: '$[*]' }], fields: itemFields } },
})

const clock = makeManualClock('2026-05-01T10:00:30Z')
const svc = await startService({
  allowlist: [`127.0.0.1:${site.port}`, `127.0.0.1:${closedPort}`, receiver.allowlistEntry],
  clock,
  env: {
    SCHEDULER_POLL_MS: '20', WEBHOOK_POLL_MS: '50', PURGE_INTERVAL_SECONDS: '60', LOGIN_ATTEMPTS_PER_MINUTE: '1000',
    RECIPES_DIR: recipesDir, RECIPE_ORIGIN_OVERRIDES: JSON.stringify({ 'https://items.example.test': site.origin }),
  },
})

try {
  const org = await svc.createOrg('pro')
  const key = org.key
  const endpoint = await svc.api('POST', '/v1/webhook-endpoints', { key, body: { url: receiver.url, enabled_events: ['job.completed', 'schedule.change_detected', 'schedule.run_skipped'] } })
  expect('webhook endpoint', endpoint.status === 201, endpoint.body)
  const policy = await svc.api('PUT', '/v1/org/retention-policy', { key, body: { retention_days: 30, legal_hold_enabled: true } })
  expect('retention policy', policy.status === 200, policy.body)

  step('plain v1 jobs')
  const submit = async (body: Record<string, unknown>) => {
    const answer = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', ...body } })
    expect('POST /v1/jobs', answer.status === 201 || answer.status === 202, answer.body)
    return (await svc.waitForResult(key, answer.body.job_id)).body
  }
  const ok = await submit({ target_url: `${site.origin}/page` })
  expect('plain job succeeded', ok.status === 'succeeded', ok)
  const http500 = await submit({ target_url: `${site.origin}/status?code=500` })
  const unreachable = await submit({ target_url: `http://127.0.0.1:${closedPort}/` })
  expect('unreachable job failed', unreachable.status === 'failed', unreachable)
  const tokened = await submit({ target_url: `${site.origin}/json`, idempotency_token: 'order-42', tags: ['shop', 'nightly'] })
  const again = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `${site.origin}/json`, idempotency_token: 'order-42', tags: ['shop', 'nightly'] } })
  expect('the token answers the same job', again.body.job_id === tokened.job_id, again.body)
  const deleted = await submit({ target_url: `${site.origin}/page?for=deletion`, tags: ['to-delete'] })
  const hold = await svc.api('POST', '/v1/org/retention-holds', { key, body: { scope_type: 'job', scope_ref: tokened.job_id, justification: 'audit 7' } })
  expect('legal hold', hold.status === 201, hold.body)
  step(`  500 target: ${http500.status}`)

  step("a user's scrapes")
  const user = await signUp(svc)
  const scraped = await svc.api('POST', '/scrapes', { headers: user.bearer, body: { url: `${site.origin}/page`, backend: 'httpx' } })
  expect('scrape succeeded', scraped.status === 200, scraped.body)
  const scrapeFailed = await svc.api('POST', '/scrapes', { headers: user.bearer, body: { url: `http://127.0.0.1:${closedPort}/`, backend: 'httpx' } })
  expect('scrape failed', scrapeFailed.status === 422 && scrapeFailed.body.ok === false, scrapeFailed.body)

  step('a content monitor with a baseline run and a change')
  const created = await svc.api('POST', '/content-monitors', { headers: user.bearer, body: { name: 'Stock', url: `${site.origin}/watched`, backend: 'httpx', frequencyMinutes: 60, rule: { type: 'any_change', config: {} } } })
  expect('content monitor created', created.status === 201, created.body)
  const contentMonitorId = created.body.id as string
  const forceRun = async () => {
    const asked = await svc.api('POST', `/content-monitors/${contentMonitorId}/runs`, { headers: user.bearer, body: { force: true } })
    expect('content monitor run', asked.status === 201, asked.body)
    const runOf = async () => (await svc.api('GET', `/content-monitors/${contentMonitorId}/runs?limit=20`, { headers: user.bearer })).body.runs.find((r: any) => r.id === asked.body.id)
    await waitFor(async () => !['pending', 'running'].includes((await runOf())?.status), 30_000)
    return runOf()
  }
  const baseline = await forceRun()
  watched = '<html><body><p>In stock now</p></body></html>'
  clock.advance(60_000) // a forced run's id follows from its instant: the second one needs another
  const changed = await forceRun()
  step(`  runs: ${baseline.status} ${JSON.stringify(baseline.changeDetected ?? baseline.change ?? null)}, ${changed.status}`)

  step('v1 monitors: delivered, blocked, overlapped')
  const monitor = async (name: string, target: string, extra: Record<string, unknown> = {}) => {
    const answer = await svc.api('POST', '/v1/monitors', { key, body: { name, cron: '*/15 * * * *', timezone: 'UTC', job_type: 'light', target_url: target, tags: ['watch'], ...extra } })
    expect(`monitor ${name}`, answer.status === 201, answer.body)
    return answer.body.id as string
  }
  const runsOf = async (id: string) => (await svc.api('GET', `/v1/monitors/${id}/runs`, { key })).body.items as any[]
  const settled = (run: any) => !['queued', 'pending', 'minted'].includes(run.status)
  const delivering = await monitor('delivering', `${site.origin}/price`, { detection: { mode: 'text', min_change_ratio: 0 } })
  const blocked = await monitor('blocked', `${site.origin}/status?code=403`)
  const slow = await monitor('slow', `${site.origin}/slow?ms=6000`, { overlap_policy: 'skip', timeout_ms: 20_000 })
  clock.set('2026-05-01T10:15:00Z')
  await waitFor(async () => (await runsOf(delivering)).some(settled) && (await runsOf(blocked)).some(settled) && (await runsOf(slow)).length === 1, 30_000)
  // The slow run is still in flight at the next instant: the skip policy records an overlapped fire. The price changes.
  price = price.replace('19.99', '24.99')
  clock.set('2026-05-01T10:30:00Z')
  await waitFor(async () => (await runsOf(delivering)).filter(settled).length === 2 && (await runsOf(blocked)).filter(settled).length === 2, 30_000)
  await waitFor(async () => (await runsOf(slow)).some(settled), 30_000)
  const manual = await svc.api('POST', `/v1/monitors/${delivering}/runs`, { key })
  expect('run now', manual.status === 202, manual.body)
  await waitFor(async () => (await runsOf(delivering)).filter(settled).length === 3, 30_000)
  for (const [name, id] of [['delivering', delivering], ['blocked', blocked], ['slow', slow]] as const) step(`  ${name}: ${(await runsOf(id)).map((r) => r.status).join(', ')}`)
  expect('delete monitor', (await svc.api('DELETE', `/v1/monitors/${slow}`, { key })).status === 204)

  step('recipe runs: ok (billed) and schema_invalid')
  const recipeRun = async (input: Record<string, unknown>, slug = 'legacy-items', extra: Record<string, unknown> = {}) => {
    const answer = await svc.api('POST', `/v1/recipes/${slug}/runs`, { key, body: { input, ...extra } })
    expect('recipe run', answer.status === 201, answer.body)
    return (await svc.waitForResult(key, answer.body.job_id)).body
  }
  const recipeOk = await recipeRun({})
  expect('recipe ok', recipeOk.recipe?.outcome === 'ok' && recipeOk.credits_charged === 1, recipeOk)
  const recipeBroken = await recipeRun({ broken: true })
  const paged = await recipeRun({}, 'legacy-pages', { max_pages: 5, idempotency_token: 'recipe-order-7' })
  expect('page-billed recipe ok', paged.recipe?.outcome === 'ok', paged)
  step(`  outcomes: ${recipeOk.recipe.outcome}, ${recipeBroken.recipe?.outcome}, ${paged.recipe.outcome} (${paged.credits_charged} credits)`)

  step('half an hour on: scheduled runs of both monitor families; the third blocked run pauses its monitor')
  clock.set('2026-05-01T11:02:00Z')
  const signedIn = await user.session() // the access token of an hour ago has expired
  const contentRuns = async () => (await svc.api('GET', `/content-monitors/${contentMonitorId}/runs?limit=20`, { headers: signedIn })).body.runs as any[]
  await waitFor(async () => (await contentRuns()).length === 3 && !(await contentRuns()).some((r) => ['pending', 'running'].includes(r.status)), 30_000)
  await waitFor(async () => (await svc.api('GET', `/v1/monitors/${blocked}`, { key })).body.status === 'paused', 30_000)
  await waitFor(async () => (await runsOf(delivering)).every(settled), 30_000)
  step(`  content monitor: ${(await contentRuns()).map((r) => r.status).join(', ')}; delivering: ${(await runsOf(delivering)).map((r) => r.status).join(', ')}`)
  const pausedContent = await svc.api('PATCH', `/content-monitors/${contentMonitorId}`, { headers: signedIn, body: { status: 'paused' } })
  expect('content monitor paused', pausedContent.status === 200, pausedContent.body)

  step('deleting a job: the purger removes it at its next sweep')
  expect('DELETE job', (await svc.api('DELETE', `/v1/jobs/${deleted.job_id}`, { key })).status === 202)
  clock.advance(61_000)
  await waitFor(async () => (await svc.api('GET', `/v1/jobs/${deleted.job_id}`, { key })).status === 404, 20_000)

  // Everything the processors owe has been recorded once the log stops growing.
  const readAll = () => svc.run(Effect.flatMap(EventStore, (store) => store.readAll(0, 1_000_000)))
  let events: readonly RecordedEvent[] = []
  await waitFor(async () => {
    const before = (await readAll()).length
    await new Promise((r) => setTimeout(r, 1500))
    events = await readAll()
    return events.length === before
  }, 30_000, 0)

  mkdirSync(OUT_DIR, { recursive: true })
  writeFileSync(join(OUT_DIR, 'events.json'), `${JSON.stringify(events, null, 1)}\n`)
  const readModels = await projectEvery(events)
  // The documents applied one at a time are the ones the live projectors built (all but the audit trail's, which the
  // SQLite store serves from its log).
  for (const projection of await svc.run(ReadModels)) {
    for (const [collection, documents] of Object.entries(readModels[projection.name]!)) {
      const live = await svc.run(Effect.flatMap(DocumentStore, (store) => store.find(collection, {})))
      expect(`${projection.name} ${collection} as the live read model`, JSON.stringify(sortedById(live)) === JSON.stringify(sortedById(documents)))
    }
  }
  writeFileSync(join(OUT_DIR, 'read-models.json'), `${JSON.stringify(readModels, null, 1)}\n`)

  const byType = countBy(events, (event) => event.type)
  const byMarker = countBy(events.filter((event) => event.type === 'JobRequested'), markerOf)
  writeFileSync(join(OUT_DIR, 'README.md'), readme(events.length, byType, byMarker))
  step(`${events.length} events`)
  for (const [type, count] of byType) step(`  ${type}: ${count}`)
  for (const [marker, count] of byMarker) step(`  JobRequested ${marker}: ${count}`)
} finally {
  await svc.close()
  await site.close()
  await receiver.close()
}
