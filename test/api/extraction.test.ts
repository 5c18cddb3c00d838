import t from 'tap'
import { readFileSync } from 'node:fs'
import { startFixtureSite } from '../fixtures/site.js'
import { startService } from '../helpers/service.js'

const fixture = (name: string) => readFileSync(new URL(`../fixtures/extraction/${name}`, import.meta.url), 'utf8')
const site = await startFixtureSite({
  '/grid': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end(fixture('product-grid.html')) },
  '/api': (_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(fixture('api-response.json')) },
  '/long': (_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end(`${'a'.repeat(40_000)}b`) },
})
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`] })
t.teardown(async () => { await svc.close(); await site.close() })
const { key } = await svc.createOrg('pro')

const submit = (hooks: unknown, extra: Record<string, unknown> = {}) =>
  svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `${site.origin}/grid`, extraction: { hooks }, ...extra } })
const codesOf = (body: any): string[] => (body?.error?.details ?? []).map((d: any) => d.code)
const extractionOf = async (jobId: string) => {
  const result = await svc.waitForResult(key, jobId)
  const artifact = result.body.artifacts.find((a: any) => a.artifact_type === 'json')
  if (!artifact) throw new Error(`no json artifact: ${JSON.stringify(result.body)}`)
  const link = await svc.api('GET', `/v1/jobs/${jobId}/artifacts/${artifact.artifact_id}`, { key })
  return { job: result.body, extraction: await (await fetch(link.body.url)).json() as any }
}

const invalid: [string, unknown, string][] = [
  ['hook type', [{ hook_id: 'a', type: 'magic' }], 'invalid_hook_type'],
  ['css without selector', [{ hook_id: 'a', type: 'css' }], 'missing_selector'],
  ['bad css selector', [{ hook_id: 'a', type: 'css', selector: 'div[' }], 'invalid_selector'],
  ['bad xpath', [{ hook_id: 'a', type: 'xpath', path: '//div[' }], 'invalid_xpath'],
  ['bad regex', [{ hook_id: 'a', type: 'regex', pattern: '(unclosed' }], 'invalid_pattern'],
  ['regex RE2 cannot run (backreference)', [{ hook_id: 'a', type: 'regex', pattern: '(a*)\\1*$' }], 'regex_unsupported'],
  ['regex RE2 cannot run (lookahead)', [{ hook_id: 'a', type: 'regex', pattern: 'a(?=b)' }], 'regex_unsupported'],
  ['nested :has()', [{ hook_id: 'a', type: 'css', selector: 'div:has(p:has(span))' }], 'selector_too_complex'],
  ['too many combinators', [{ hook_id: 'a', type: 'css', selector: Array.from({ length: 20 }, () => 'div').join(' ') }], 'selector_too_complex'],
  ['bad jsonpath', [{ hook_id: 'a', type: 'jsonpath', path: '$[?(' }], 'invalid_path'],
  ['bad record field selector', [{ hook_id: 'a', type: 'records', container: '.card', fields: { name: { selector: 'h2[' } } }], 'invalid_field_selector'],
  ['unknown transform', [{ hook_id: 'a', type: 'records', container: '.card', fields: { name: { selector: 'h2', transform: ['explode'] } } }], 'invalid_transform'],
  ['duplicate hook ids', [{ hook_id: 'a', type: 'css', selector: 'h1' }, { hook_id: 'a', type: 'css', selector: 'h2' }], 'duplicate_hook_id'],
  ['max_results above 1000', [{ hook_id: 'a', type: 'css', selector: 'h1', max_results: 1001 }], 'invalid_max_results'],
  ['max_results zero', [{ hook_id: 'a', type: 'css', selector: 'h1', max_results: 0 }], 'invalid_max_results'],
  ['too many hooks', Array.from({ length: 26 }, (_, i) => ({ hook_id: `h${i}`, type: 'css', selector: 'h1' })), 'too_many_hooks'],
]
for (const [name, hooks, code] of invalid) {
  t.test(`422 ${code}: ${name}`, async (t) => {
    const answer = await submit(hooks)
    t.equal(answer.status, 422, answer.text)
    t.ok(codesOf(answer.body).includes(code), codesOf(answer.body).join(','))
    const detail = answer.body.error.details.find((d: any) => d.code === code)
    t.match(detail.field, /^extraction/, 'the field names the hook')
  })
}

t.test('no job was created by the rejected submissions', async (t) => {
  t.equal((await svc.api('GET', '/v1/jobs', { key })).body.total, 0)
})

t.test('a light job runs every hook type and stores the JSON artifact', async (t) => {
  const submitted = await submit([
    { hook_id: 'title', type: 'css', selector: 'h1' },
    { hook_id: 'names', type: 'xpath', path: '//*[contains(@class, "product")]//*[contains(@class, "title")]', all_matches: true },
    { hook_id: 'none', type: 'css', selector: '.does-not-exist' },
    { hook_id: 'cards', type: 'records', container: '.product', fields: { name: { selector: '.title' }, price: { selector: '.amount', transform: ['number'] } } },
  ])
  t.equal(submitted.status, 202, submitted.text)
  const { job, extraction } = await extractionOf(submitted.body.job_id)
  t.equal(job.status, 'succeeded')
  const byId = Object.fromEntries(extraction.hooks.map((h: any) => [h.hook_id, h]))
  t.same(Object.keys(byId).sort(), ['cards', 'names', 'none', 'title'])
  t.equal(byId.title.status, 'ok')
  t.equal(byId.none.status, 'no_match', 'a hook that matches nothing does not fail the job')
  t.equal(byId.names.result.length, 4)
  t.equal(byId.cards.result.length, 4, 'one row per container')
  t.same(byId.cards.result[0], { name: 'Road Runner New', price: 129.99 })
  t.ok(byId.cards.result.some((row: any) => row.price === null), 'a missing field is null, rows stay aligned')
  for (const hook of extraction.hooks) {
    for (const field of ['hook_id', 'status', 'result', 'truncated', 'total_matched', 'skipped_records']) t.ok(field in hook, `${hook.hook_id} has ${field}`)
  }
})

t.test('jsonpath runs over a JSON response body', async (t) => {
  const submitted = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `${site.origin}/api`, extraction: { hooks: [{ hook_id: 'all', type: 'jsonpath', path: '$..*', all_matches: true, max_results: 3 }] } } })
  const { extraction } = await extractionOf(submitted.body.job_id)
  t.equal(extraction.hooks[0].status, 'ok')
  t.equal(extraction.hooks[0].result.length, 3)
  t.equal(extraction.hooks[0].truncated, true)
  t.ok(extraction.hooks[0].total_matched > 3)
})

t.test('a pattern that backtracks catastrophically in JavaScript runs in linear time: accepted, and the job completes', async (t) => {
  const submitted = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `${site.origin}/long`, extraction: { hooks: [{ hook_id: 'slow', type: 'regex', pattern: '(?:a|a)*c' }] } } })
  t.equal(submitted.status, 202, submitted.text)
  const { job, extraction } = await extractionOf(submitted.body.job_id)
  t.equal(job.status, 'succeeded')
  t.equal(extraction.hooks[0].status, 'no_match')
})

t.test('include_extraction without hooks is accepted and yields an empty extraction result', async (t) => {
  const submitted = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `${site.origin}/grid`, artifact_options: { include_extraction: true } } })
  t.equal(submitted.status, 202, submitted.text)
  const { job, extraction } = await extractionOf(submitted.body.job_id)
  t.equal(job.status, 'succeeded')
  t.same(extraction, { hooks: [] })
})

t.test('unknown fields inside hooks and record fields are refused, naming their path', async (t) => {
  const cases: [unknown, string][] = [
    [{ hooks: [{ hook_id: 'a', type: 'css', selector: 'h1', zzz: 1 }] }, 'extraction.hooks[0].zzz'],
    [{ hooks: [{ hook_id: 'a', type: 'regex', pattern: 'a', selector: 'h1' }] }, 'extraction.hooks[0].selector'],
    [{ hooks: [{ hook_id: 'a', type: 'records', container: 'li', fields: { n: { selector: 'b', zzz: true } } }] }, 'extraction.hooks[0].fields.n.zzz'],
    [{ hooks: [], mode: 'fast' }, 'extraction.mode'],
  ]
  for (const [extraction, field] of cases) {
    const answer = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `${site.origin}/grid`, extraction } })
    t.equal(answer.status, 422, field)
    t.ok(answer.body.error.details.some((d: any) => d.code === 'unknown_field' && d.field === field), `${field}: ${answer.text}`)
  }
})
