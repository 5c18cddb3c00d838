import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { startReceiver, verifyWithStandardWebhooks } from '../helpers/webhook-receiver.js'
import { portNothingListensOn, startService, waitFor } from '../helpers/service.js'

/**
 * Recipe run endings the shipped fixtures cannot produce, through the real service and the egress gateway: output
 * over the 256 KB inline size (stored, delivered as a signed result_url in the result and in the webhook), output
 * that fails the contract's schema (schema_invalid naming the first failing pointer), a site that never answers
 * (timeout) and runs that cannot complete (error).
 */
// 1000 items (a locator's most results) of about 320 bytes each: over 256 KB.
const TEXT = 'x'.repeat(300)
const site = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://site')
  if (url.pathname === '/items') {
    const count = Number(url.searchParams.get('count'))
    const items = Array.from({ length: count }, (_, i) => ({ id: url.searchParams.get('broken') === 'true' && i === 1 ? 'two' : i, text: TEXT }))
    return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items, next: 'https://elsewhere.example.test/more' }))
  }
  if (url.pathname === '/slow') return // never answers: the job's timeout_ms ends the run
  res.writeHead(404, { 'content-type': 'application/json' }).end('{}')
})
await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
const sitePort = (site.address() as AddressInfo).port
const closedPort = await portNothingListensOn()

const recipe = (slug: string, steps: unknown[]) => ({
  slug, title: `Items (${slug})`, category: 'Test', status: 'beta', hosts: ['https://items.example.test', 'https://down.example.test'],
  contracts: [{
    contract: 1, engine: 'light', multiplier: 1, credits_per_unit: 1, billing: { unit: 'run' },
    input_schema: {
      type: 'object', additionalProperties: false, required: ['count'],
      properties: { count: { type: 'integer', minimum: 1, maximum: 5000 }, broken: { type: 'boolean' } },
    },
    output_schema: {
      type: 'object', additionalProperties: false, required: ['items'], properties: {
        items: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['id', 'text'], properties: { id: { type: 'integer' }, text: { type: 'string' } } } },
      },
    },
    example: { input: { count: 1 }, output: { items: [{ id: 0, text: TEXT }] } },
    implementation: {
      impl: 1, steps, assertions: [],
      extract: { items: { each: [{ jsonpath: '$.items[*]' }], fields: { id: { locators: [{ jsonpath: '$.id' }] }, text: { locators: [{ jsonpath: '$.text' }] } } } },
      output: { items: '$extract.items' },
    },
  }],
})
const items = { request: { url: 'https://items.example.test/items', query: { count: '{input.count}', broken: '{input.broken}' } } }

const dir = mkdtempSync(join(tmpdir(), 'recipes-outcomes-'))
const write = (slug: string, steps: unknown[]) => writeFileSync(join(dir, `${slug}.json`), JSON.stringify(recipe(slug, steps)))
write('test-items', [items])
write('test-items-slow', [{ request: { url: 'https://items.example.test/slow', query: { count: '{input.count}' } } }])
write('test-items-down', [{ request: { url: 'https://down.example.test/items', query: { count: '{input.count}' } } }])
write('test-items-escape', [items, { follow: { locators: [{ jsonpath: '$.next' }], as: 'more' } }])

const receiver = await startReceiver()
const svc = await startService({
  allowlist: [`127.0.0.1:${sitePort}`, `127.0.0.1:${closedPort}`, receiver.allowlistEntry],
  env: {
    RECIPES_DIR: dir,
    RECIPE_ORIGIN_OVERRIDES: JSON.stringify({ 'https://items.example.test': `http://127.0.0.1:${sitePort}`, 'https://down.example.test': `http://127.0.0.1:${closedPort}` }),
    WEBHOOK_POLL_MS: '100',
  },
})
t.teardown(async () => {
  await svc.close()
  await receiver.close()
  await new Promise<void>((resolve) => { site.closeAllConnections(); site.close(() => resolve()) })
})
const org = await svc.createOrg('pro')
const endpoint = await svc.api('POST', '/v1/webhook-endpoints', { key: org.key, body: { url: receiver.url, enabled_events: ['job.completed'] } })

const runToEnd = async (slug: string, input: Record<string, unknown>) => {
  const answer = await svc.api('POST', `/v1/recipes/${slug}/runs`, { key: org.key, body: { input } })
  t.equal(answer.status, 201, `${slug}: 201`)
  return (await svc.waitForResult(org.key, answer.body.job_id, 90_000)).body
}
const webhookOf = async (jobId: string) => {
  await waitFor(() => receiver.received.some((r) => r.event.data.job_id === jobId), 30_000)
  const delivery = receiver.received.find((r) => r.event.data.job_id === jobId)!
  verifyWithStandardWebhooks(endpoint.body.secret, delivery)
  return delivery.event
}

t.test('output up to 256 KB is inline, in the result and in the webhook', async (t) => {
  const result = await runToEnd('test-items', { count: 10 })
  t.equal(result.recipe.outcome, 'ok')
  t.equal(result.output.items.length, 10)
  t.equal(result.result_url, null)
  t.same(result.artifacts, [], 'nothing stored')
  const event = await webhookOf(result.job_id)
  t.same(event.data.recipe, { slug: 'test-items', contract: 1, impl: 1, outcome: 'ok', result: result.output, result_url: null, result_url_expires_at: null })
})

t.test('output over 256 KB is stored and delivered as a signed result_url', async (t) => {
  const result = await runToEnd('test-items', { count: 1000 })
  t.equal(result.status, 'succeeded')
  t.equal(result.recipe.outcome, 'ok')
  t.equal(result.output, null, 'not inline')
  t.equal(result.credits_charged, 1, 'billed like any ok run')
  t.match(result.result_url, /^http/)
  t.ok(Date.parse(result.result_url_expires_at) > Date.now(), 'short-lived: it expires')
  t.equal(result.artifacts.length, 1)
  t.match(result.artifacts[0], { artifact_type: 'recipe_output', content_type: 'application/json' })
  t.ok(result.artifacts[0].size > 256 * 1024, `${result.artifacts[0].size} bytes`)
  const download = await fetch(result.result_url)
  t.equal(download.status, 200)
  const output = await download.json() as { items: { id: number; text: string }[] }
  t.equal(output.items.length, 1000)
  t.same(output.items[999], { id: 999, text: TEXT })
  const forged = await fetch(result.result_url.replace(/sig=[^&]+/, 'sig=forged'))
  t.not(forged.status, 200, 'the signature is the credential')

  const event = await webhookOf(result.job_id)
  t.match(event.data.recipe, { slug: 'test-items', contract: 1, impl: 1, outcome: 'ok', result: null })
  t.match(event.data.recipe.result_url, /^http/, 'the webhook carries result_url instead of the output')
  t.ok(event.data.recipe.result_url_expires_at)
  const viaWebhook = await fetch(event.data.recipe.result_url)
  t.equal(viaWebhook.status, 200)
  t.equal(((await viaWebhook.json()) as { items: unknown[] }).items.length, 1000)
})

t.test('output failing the output schema: schema_invalid with the first failing pointer, not billed', async (t) => {
  const result = await runToEnd('test-items', { count: 3, broken: true })
  t.equal(result.status, 'failed')
  t.equal(result.failure_reason, 'schema_invalid')
  t.equal(result.recipe.outcome, 'schema_invalid')
  t.match(result.outcome_detail, /^\/items\/1\/id: /, 'names the first failing pointer')
  t.equal(result.output, null)
  t.equal(result.credits_charged, 0)
})

t.test('a site that never answers: timeout, not billed', async (t) => {
  const started = Date.now()
  const result = await runToEnd('test-items-slow', { count: 1 })
  t.equal(result.status, 'failed')
  t.equal(result.recipe.outcome, 'timeout')
  t.equal(result.failure_reason, 'timeout')
  t.ok(Date.now() - started >= 29_000, 'after the job\'s timeout_ms')
  t.equal(result.credits_charged, 0)
})

t.test('runs that cannot complete: error, not billed', async (t) => {
  const down = await runToEnd('test-items-down', { count: 1 })
  t.equal(down.recipe.outcome, 'error')
  t.match(down.outcome_detail, /network_error/, 'the site could not be reached')
  t.equal(down.credits_charged, 0)
  const escape = await runToEnd('test-items-escape', { count: 1 })
  t.equal(escape.recipe.outcome, 'error')
  t.match(escape.outcome_detail, /leaves the recipe's hosts/, 'a followed URL off the recipe\'s hosts is never fetched')
  t.equal(escape.credits_charged, 0)
  const used = (await svc.api('GET', '/v1/usage', { key: org.key })).body
  t.equal(used.credits_used, 2, 'only the two ok runs were charged')
})
