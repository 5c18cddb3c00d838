import { readFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import { makeManualClock } from '../../infra/clock/manual.js'
import { Scrapeworks, ScrapeworksError, verifyWebhook } from '../../sdks/typescript/src/index.js'
import { startFixtureSite } from '../fixtures/site.js'
import { fixturesOf } from '../helpers/recipe-fixtures.js'
import { startRecipeSite } from '../helpers/recipe-site.js'
import { portNothingListensOn, startService, waitFor } from '../helpers/service.js'
import { startReceiver, verifyWithStandardWebhooks } from '../helpers/webhook-receiver.js'

// The TypeScript SDK (sdks/typescript) against the running service: no mock between them.

const ARTICLE = readFileSync(new URL('../fixtures/browser/app.html', import.meta.url), 'utf8')
const site = await startFixtureSite({
  '/article': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end(ARTICLE) },
})
const receiver = await startReceiver()
const recipeSite = await startRecipeSite(['https://api.github.com'])
const closedPort = await portNothingListensOn()
const svc = await startService({
  allowlist: [`127.0.0.1:${site.port}`, receiver.allowlistEntry, `127.0.0.1:${recipeSite.port}`, `127.0.0.1:${closedPort}`],
  env: { RECIPE_ORIGIN_OVERRIDES: recipeSite.overrides },
})
t.teardown(async () => { await svc.close(); await site.close(); await receiver.close(); await recipeSite.close() })
const { key } = await svc.createOrg('pro')
const client = new Scrapeworks({ apiKey: key, baseUrl: svc.base })

/** What a promise rejected with, failing the test when it did not reject with a ScrapeworksError. */
const refusal = async (t: Test, promise: Promise<unknown>): Promise<ScrapeworksError> => {
  try {
    await promise
  } catch (error) {
    t.type(error, ScrapeworksError)
    return error as ScrapeworksError
  }
  t.fail('expected a ScrapeworksError')
  return new ScrapeworksError('none', -1, 'none')
}

t.test('scrape submits, long-polls and answers the formats at the top', async (t) => {
  const result = await client.scrape(`${site.origin}/article`, { formats: ['markdown', 'html', 'text', 'links', 'metadata'] })
  t.match(result.jobId, /^[0-9a-f-]{36}$/)
  t.equal(result.status, 'succeeded')
  t.match(result.markdown, /^# Fixture headline\n/)
  t.match(result.markdown, `[the guide](${site.origin}/docs/guide)`)
  t.match(result.html, /<h1[^>]*>Fixture headline<\/h1>/)
  t.match(result.text, /Fixture headline/)
  t.same(result.links, [`${site.origin}/about`, 'https://example.org/elsewhere', `${site.origin}/article#top`, `${site.origin}/docs/guide`])
  t.match(result.metadata, { url: `${site.origin}/article` })
  t.equal(result.json, null, 'not asked for')
  t.ok(result.artifacts.some((a) => a.artifact_type === 'reader'), 'the markdown is an artifact too')
  t.same(result.truncated, {})

  const json = await client.scrape(`${site.origin}/json`, { formats: ['json'] })
  t.same(json.json, { items: [{ id: 1, name: 'a' }, { id: 2, name: 'b' }] })
  t.equal(json.markdown, null)
})

t.test('jobs: submit, get, result, wait, list and delete', async (t) => {
  const submitted = await client.jobs.submit({ job_type: 'light', target_url: `${site.origin}/page`, formats: ['text'], tags: ['sdk'] })
  t.match(submitted, { job_id: /^[0-9a-f-]{36}$/, status: 'queued' })
  const jobId = submitted.job_id!
  const ended = await client.jobs.wait(jobId, { pollSeconds: 5 })
  t.match(ended, { job_id: jobId, status: 'succeeded', formats: { text: /Widget/ } })
  t.match(await client.jobs.get(jobId), { job_id: jobId, status: 'succeeded', job_type: 'light', tags: ['sdk'] })
  t.match(await client.jobs.result(jobId), { job_id: jobId, formats: { text: /Widget/ } })
  const listed = await client.jobs.list({ tag: 'sdk', status: 'succeeded' })
  t.same(listed.items?.map((job) => job.job_id), [jobId])

  const slow = await client.jobs.submit({ job_type: 'light', target_url: `${site.origin}/slow?ms=3000` })
  const running = await refusal(t, client.jobs.delete(slow.job_id!))
  t.match(running, { status: 409, code: 'job_not_finished' }, 'a job still running cannot be deleted (there is no cancellation)')
  const notReady = await refusal(t, client.jobs.result(slow.job_id!))
  t.match(notReady, { status: 409, code: 'result_not_ready' })
  t.match(await client.jobs.delete(jobId), { job_id: jobId, deletion_requested: true })
  const missing = await refusal(t, client.jobs.get('00000000-0000-4000-8000-000000000000'))
  t.match(missing, { status: 404, code: 'job_not_found', fieldErrors: [] })
})

t.test('a 422 carries every failing field', async (t) => {
  const error = await refusal(t, client.jobs.submit({ job_type: 'light', target_url: `${site.origin}/page`, timeout_ms: -1, formats: ['screenshot'] }))
  t.equal(error.status, 422)
  t.equal(error.code, error.fieldErrors[0]?.code, 'error.code is the first failing field\'s')
  t.match([...error.fieldErrors].sort((a, b) => a.field.localeCompare(b.field)), [
    { field: /^formats/, code: 'format_not_supported_by_tier' },
    { field: 'timeout_ms', code: 'invalid_timeout_ms' },
  ])
  t.match(error.message, /^422 \w+: /)
})

t.test('a wrong key is a 401 ScrapeworksError, not retried', async (t) => {
  const error = await refusal(t, new Scrapeworks({ apiKey: 'sw_wrong', baseUrl: svc.base }).jobs.list())
  t.match(error, { status: 401, code: /^\w+$/, fieldErrors: [], retryAfterSeconds: null })
})

t.test('a failed job and an unreachable service are ScrapeworksErrors too', async (t) => {
  const failed = await refusal(t, client.scrape(`http://127.0.0.1:${closedPort}/`))
  t.match(failed, { status: 0, code: 'job_failed', message: /^job [0-9a-f-]{36} failed: \w+: / })
  const unreachable = await refusal(t, new Scrapeworks({ apiKey: key, baseUrl: `http://127.0.0.1:${closedPort}` }).jobs.list())
  t.match(unreachable, { status: 0, code: 'connection_failed', message: /ECONNREFUSED/ })
})

t.test('monitors: create, get, list, update, runs, delete', async (t) => {
  const created = await client.monitors.create({ name: 'sdk', cron: '0 * * * *', job_type: 'light', target_url: `${site.origin}/page` })
  t.match(created, { name: 'sdk', cron: '0 * * * *', status: 'active' })
  const id = created.id!
  t.match(await client.monitors.get(id), { id, name: 'sdk' })
  t.ok((await client.monitors.list()).items?.some((m) => m.id === id))
  t.match(await client.monitors.update(id, { name: 'sdk renamed' }), { id, name: 'sdk renamed' })
  t.match(await client.monitors.runs(id), { items: [] })
  await client.monitors.delete(id)
  t.match(await refusal(t, client.monitors.get(id)), { status: 404, code: 'monitor_not_found' })
})

t.test('recipes: list and run', async (t) => {
  t.ok((await client.recipes.list()).items?.some((r) => r.slug === 'code-repo'))
  const ok = fixturesOf('code-repo').find((f) => f.name === 'ok')!
  recipeSite.use(ok)
  const job = await client.recipes.run('code-repo', { input: { owner: 'octocat', repo: 'Hello-World' } })
  t.equal(job.status, 'succeeded')
  t.same(job.output, ok.expect.output)
})

t.test('webhooks: endpoints CRUD, and verifyWebhook on a real delivery', async (t) => {
  const endpoint = await client.webhooks.create({ url: receiver.url, enabled_events: ['job.completed'] })
  const secret = endpoint.secret!
  t.match(secret, /^whsec_/)
  t.match(await client.webhooks.get(endpoint.endpoint_id!), { endpoint_id: endpoint.endpoint_id, url: receiver.url })
  t.ok((await client.webhooks.list()).items?.some((e) => e.endpoint_id === endpoint.endpoint_id))
  t.match(await client.webhooks.update(endpoint.endpoint_id!, { description: 'sdk' }), { description: 'sdk' })

  const { jobId } = await client.scrape(`${site.origin}/page`, { formats: ['text'] })
  await waitFor(() => receiver.received.some((d) => d.event.data.job_id === jobId), 30_000)
  const delivery = receiver.received.find((d) => d.event.data.job_id === jobId)!
  const event = verifyWebhook(delivery.body, delivery.headers, secret)
  t.match(event, { type: 'job.completed', data: { job_id: jobId } })
  t.same(event, verifyWithStandardWebhooks(secret, delivery), 'the reference library agrees')
  t.same(client.webhooks.verifyWebhook(Buffer.from(delivery.body), new Headers(delivery.headers as Record<string, string>), secret), event, 'bytes and a Headers object work too')

  const tampered = (fn: () => unknown) => { try { fn(); return null } catch (error) { return error } }
  t.match(tampered(() => verifyWebhook(delivery.body.replace(jobId, 'x'), delivery.headers, secret)), { code: 'invalid_webhook_signature' })
  const other = (await client.webhooks.create({ url: receiver.url, enabled_events: ['job.completed'] })).secret!
  t.match(tampered(() => verifyWebhook(delivery.body, delivery.headers, other)), { code: 'invalid_webhook_signature' })
  const later = new Date(Number(delivery.headers['webhook-timestamp']) * 1000 + 6 * 60_000)
  t.match(tampered(() => verifyWebhook(delivery.body, delivery.headers, secret, { now: later })), { code: 'invalid_webhook_signature', message: /from now/ })
  t.match(tampered(() => verifyWebhook(delivery.body, {}, secret)), { code: 'invalid_webhook_signature', message: /missing/ })

  t.match(await client.webhooks.delete(endpoint.endpoint_id!), {})
  t.match(await refusal(t, client.webhooks.get(endpoint.endpoint_id!)), { status: 404 })
})

t.test('a 429 is retried after its Retry-After', async (t) => {
  // A service of its own on a manual clock: the SDK's wait moves that clock, so the minute window passes at once.
  const clock = makeManualClock(new Date('2026-05-01T10:20:30Z'))
  const limited = await startService({ clock })
  t.teardown(() => limited.close())
  const owner = await limited.createOrg('pro')
  const created = await limited.api('POST', '/v1/keys', { key: owner.key, body: { name: 'slow', scopes: ['jobs.read'], rate_limit_rpm: 1 } })
  t.equal(created.status, 201, created.text)
  const waits: number[] = []
  const sleep = async (ms: number) => { waits.push(ms); clock.advance(ms) }
  const slow = new Scrapeworks({ apiKey: created.body.api_key, baseUrl: limited.base, sleep })

  t.match(await slow.jobs.list(), { items: [] })
  t.same(waits, [], 'the first request is in the limit')
  t.match(await slow.jobs.list(), { items: [] }, 'the second is answered 429, waits and succeeds')
  t.equal(waits.length, 1)
  t.ok(waits[0]! >= 1000 && waits[0]! <= 60_000 && waits[0]! % 1000 === 0, `waited Retry-After seconds (${waits[0]} ms)`)

  const once = new Scrapeworks({ apiKey: created.body.api_key, baseUrl: limited.base, sleep, retry: { maxAttempts: 1 } })
  const error = await refusal(t, once.jobs.list())
  t.match(error, { status: 429, code: 'rate_limit_exceeded' })
  t.ok(error.retryAfterSeconds! > 0, 'the error says how long to wait')
  const impatient = new Scrapeworks({ apiKey: created.body.api_key, baseUrl: limited.base, sleep, retry: { maxDelayMs: 500 } })
  t.match(await refusal(t, impatient.jobs.list()), { status: 429 }, 'a Retry-After over maxDelayMs is thrown, not waited')
  t.equal(waits.length, 1, 'neither waited')
})
