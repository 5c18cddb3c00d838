/**
 * Writes test/fixtures/legacy-log/: an event log recorded by the real embedded service (manual clock, local fixture
 * site, a one-file recipe catalogue) through every entry point that creates a job, and the documents each projection
 * builds from it applied one event at a time. The fixture is data for replay tests: a later event schema must replay
 * this log to the same read models. `node --import tsx scripts/make-legacy-log.ts` (re-running it writes new ids).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Effect } from 'effect'
import { streamCategory } from '../domain/streams.js'
import { makeManualClock } from '../infra/clock/manual.js'
import { EventStore, type RecordedEvent } from '../ports/event-store.js'
import { PROJECTIONS } from '../projections/index.js'
import { startFixtureSite } from '../test/fixtures/site.js'
import { signUp } from '../test/helpers/account.js'
import { project } from '../test/helpers/projection-spec.js'
import { portNothingListensOn, startService, waitFor } from '../test/helpers/service.js'

const OUT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'legacy-log')
const step = (what: string) => process.stderr.write(`- ${what}\n`)
const expect = (what: string, condition: boolean, detail?: unknown) => {
  if (!condition) throw new Error(`${what}: ${JSON.stringify(detail)}`)
}

let watched = '<html><body><p>Out of stock</p></body></html>'
const site = await startFixtureSite({
  '/watched': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(watched) },
  '/items': (_req, res, url) => {
    const broken = url.searchParams.get('broken') === 'true'
    const items = [{ id: 1, text: 'one' }, { id: broken ? 'two' : 2, text: 'two' }]
    res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ items }))
  },
})
const closedPort = await portNothingListensOn()

// One light recipe billed per run, its origin mapped to the fixture site.
const recipesDir = mkdtempSync(join(tmpdir(), 'legacy-log-recipes-'))
writeFileSync(join(recipesDir, 'legacy-items.json'), JSON.stringify({
  slug: 'legacy-items', title: 'Items', category: 'Test', status: 'beta', hosts: ['https://items.example.test'],
  contracts: [{
    contract: 1, engine: 'light', multiplier: 1, credits_per_unit: 1, billing: { unit: 'run' },
    input_schema: { type: 'object', additionalProperties: false, properties: { broken: { type: 'boolean' } } },
    output_schema: {
      type: 'object', additionalProperties: false, required: ['items'], properties: {
        items: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['id', 'text'], properties: { id: { type: 'integer' }, text: { type: 'string' } } } },
      },
    },
    example: { input: {}, output: { items: [{ id: 1, text: 'one' }, { id: 2, text: 'two' }] } },
    implementation: {
      impl: 1, assertions: [],
      steps: [{ request: { url: 'https://items.example.test/items', query: { broken: '{input.broken}' } } }],
      extract: { items: { each: [{ jsonpath: '$.items[*]' }], fields: { id: { locators: [{ jsonpath: '$.id' }] }, text: { locators: [{ jsonpath: '$.text' }] } } } },
      output: { items: '$extract.items' },
    },
  }],
}))

const clock = makeManualClock('2026-05-01T10:00:30Z')
const svc = await startService({
  allowlist: [`127.0.0.1:${site.port}`, `127.0.0.1:${closedPort}`],
  clock,
  env: {
    SCHEDULER_POLL_MS: '20', PURGE_INTERVAL_SECONDS: '60', LOGIN_ATTEMPTS_PER_MINUTE: '1000',
    RECIPES_DIR: recipesDir, RECIPE_ORIGIN_OVERRIDES: JSON.stringify({ 'https://items.example.test': site.origin }),
  },
})

try {
  const org = await svc.createOrg('pro')
  const key = org.key

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
  const delivering = await monitor('delivering', `${site.origin}/page`, { detection: { mode: 'text' } })
  const blocked = await monitor('blocked', `${site.origin}/status?code=403`)
  const slow = await monitor('slow', `${site.origin}/slow?ms=6000`, { overlap_policy: 'skip', timeout_ms: 20_000 })
  clock.set('2026-05-01T10:15:00Z')
  await waitFor(async () => (await runsOf(delivering)).some(settled) && (await runsOf(blocked)).some(settled) && (await runsOf(slow)).length === 1, 30_000)
  // The slow run is still in flight at the next instant: the skip policy records an overlapped fire.
  clock.set('2026-05-01T10:30:00Z')
  await waitFor(async () => (await runsOf(delivering)).filter(settled).length === 2 && (await runsOf(blocked)).filter(settled).length === 2, 30_000)
  await waitFor(async () => (await runsOf(slow)).some(settled), 30_000)
  const manual = await svc.api('POST', `/v1/monitors/${delivering}/runs`, { key })
  expect('run now', manual.status === 202, manual.body)
  await waitFor(async () => (await runsOf(delivering)).filter(settled).length === 3, 30_000)
  for (const [name, id] of [['delivering', delivering], ['blocked', blocked], ['slow', slow]] as const) step(`  ${name}: ${(await runsOf(id)).map((r) => r.status).join(', ')}`)
  expect('delete monitor', (await svc.api('DELETE', `/v1/monitors/${slow}`, { key })).status === 204)

  step('recipe runs: ok (billed) and schema_invalid')
  const recipeRun = async (input: Record<string, unknown>) => {
    const answer = await svc.api('POST', '/v1/recipes/legacy-items/runs', { key, body: { input } })
    expect('recipe run', answer.status === 201, answer.body)
    return (await svc.waitForResult(key, answer.body.job_id)).body
  }
  const recipeOk = await recipeRun({})
  expect('recipe ok', recipeOk.recipe?.outcome === 'ok' && recipeOk.credits_charged === 1, recipeOk)
  const recipeBroken = await recipeRun({ broken: true })
  step(`  outcomes: ${recipeOk.recipe.outcome}, ${recipeBroken.recipe?.outcome}`)

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
  const readModels: Record<string, unknown> = {}
  for (const projection of PROJECTIONS) {
    const own = events.filter((event) => projection.categories.includes(streamCategory(event.stream)))
    readModels[projection.name] = await project(projection, own)
  }
  writeFileSync(join(OUT_DIR, 'read-models.json'), `${JSON.stringify(readModels, null, 1)}\n`)

  const byType = new Map<string, number>()
  for (const event of events) byType.set(event.type, (byType.get(event.type) ?? 0) + 1)
  step(`${events.length} events`)
  for (const [type, count] of [...byType].sort()) step(`  ${type}: ${count}`)
} finally {
  await svc.close()
  await site.close()
}
