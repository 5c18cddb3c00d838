import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { startService } from '../helpers/service.js'

/**
 * Recipe browser steps through the real service on the standard tier (Chromium, egress gateway), and once on the
 * stealth tier: a local shop page with a consent banner over a search form whose results a script renders. The
 * recipe accepts the banner, fills the query, clicks search and waits for the results; its fill and click chains
 * match on their second locator.
 */
const SEARCH_PAGE = `<!doctype html><html><head><title>Shop search</title>
<style>#consent{position:fixed;inset:0;background:rgba(0,0,0,.6);z-index:10}</style></head><body>
<div id="consent" class="cookie-consent"><button id="onetrust-accept-btn-handler">Accept all</button></div>
<form onsubmit="return false"><input name="q" type="text"><button class="search" type="button">Search</button></form>
<div id="results"></div>
<script>
  let consented = false
  document.getElementById('onetrust-accept-btn-handler').addEventListener('click', () => { consented = true; document.getElementById('consent').remove() })
  document.querySelector('button.search').addEventListener('click', async () => {
    if (!consented) return
    const q = document.querySelector('input[name=q]').value
    const items = await (await fetch('api/search?q=' + encodeURIComponent(q))).json()
    const results = document.getElementById('results')
    for (const item of items) {
      const li = document.createElement('li'); li.className = 'result'
      const name = document.createElement('span'); name.className = 'name'; name.textContent = item.name
      const price = document.createElement('span'); price.className = 'price'; price.textContent = String(item.price)
      li.append(name, price); results.append(li)
    }
    if (items.length === 0) { const none = document.createElement('p'); none.className = 'no-results'; none.textContent = 'No results'; results.append(none) }
    results.classList.add('done')
  })
</script></body></html>`

const CATALOGUE: Record<string, { name: string; price: number }[]> = {
  lamp: [{ name: 'Desk lamp', price: 19.5 }, { name: 'Floor lamp', price: 49 }],
}

const queries: string[] = []
const shop = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://shop')
  if (url.pathname === '/search') return void res.writeHead(200, { 'content-type': 'text/html' }).end(SEARCH_PAGE)
  if (url.pathname === '/api/search') {
    const q = url.searchParams.get('q') ?? ''
    queries.push(q)
    return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(CATALOGUE[q] ?? []))
  }
  res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>')
})
await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve))
const shopPort = (shop.address() as AddressInfo).port

const recipe = (slug: string, steps: unknown[], engine = 'standard') => ({
  slug, title: 'Shop search (test)', category: 'Test', status: 'beta', hosts: ['https://shop.example.test'],
  contracts: [{
    contract: 1, engine, multiplier: 1, credits_per_unit: engine === 'stealth' ? 30 : 5, billing: { unit: 'run' },
    input_schema: { type: 'object', additionalProperties: false, required: ['query'], properties: { query: { type: 'string', minLength: 1, maxLength: 200 } } },
    output_schema: {
      type: 'object', additionalProperties: false, required: ['query', 'results'], properties: {
        query: { type: 'string' },
        results: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['name', 'price'], properties: { name: { type: 'string' }, price: { type: 'number' } } } },
      },
    },
    example: { input: { query: 'lamp' }, output: { query: 'lamp', results: [{ name: 'Desk lamp', price: 19.5 }] } },
    implementation: {
      impl: 1, steps,
      assertions: [{ outcome: 'ok_empty', select: [{ css: '#results .no-results' }] }],
      extract: { results: { each: [{ css: '#results li.result' }], fields: { name: { locators: [{ css: '.name' }] }, price: { locators: [{ css: '.price' }], transform: ['number'] } } } },
      output: { query: '$input.query', results: '$extract.results' },
    },
  }],
})

const search = (waitMs?: number) => [
  { fill: { locators: [{ css: '#old-query' }, { css: 'input[name=q]' }], value: '{input.query}' } },
  { click: { locators: [{ xpath: '//button[@id="go-old"]' }, { css: 'button.search' }] } },
  { wait_for_selector: { locators: [{ css: '#results.done' }], ...(waitMs ? { timeout_ms: waitMs } : {}) } },
]

const dir = mkdtempSync(join(tmpdir(), 'recipes-browser-'))
writeFileSync(join(dir, 'test-shop-search.json'), JSON.stringify(recipe('test-shop-search', [
  { navigate: { url: 'https://shop.example.test/search' } }, { dismiss_consent: {} }, ...search(),
])))
writeFileSync(join(dir, 'test-shop-search-stealth.json'), JSON.stringify(recipe('test-shop-search-stealth', [
  { navigate: { url: 'https://shop.example.test/search' } }, { dismiss_consent: {} }, ...search(),
], 'stealth')))
writeFileSync(join(dir, 'test-shop-no-consent.json'), JSON.stringify(recipe('test-shop-no-consent', [
  { navigate: { url: 'https://shop.example.test/search' } }, ...search(1000),
])))

const svc = await startService({
  allowlist: [`127.0.0.1:${shopPort}`],
  env: { RECIPES_DIR: dir, RECIPE_ORIGIN_OVERRIDES: JSON.stringify({ 'https://shop.example.test': `http://127.0.0.1:${shopPort}` }), BROWSER_POOL_SIZE: '1' },
})
t.teardown(async () => { await svc.close(); await new Promise<void>((resolve) => shop.close(() => resolve())) })
const org = await svc.createOrg('pro')

const runToEnd = async (slug: string, input: Record<string, unknown>) => {
  const answer = await svc.api('POST', `/v1/recipes/${slug}/runs`, { key: org.key, body: { input } })
  t.equal(answer.status, 201, `${slug}: 201`)
  return (await svc.waitForResult(org.key, answer.body.job_id, 90_000)).body
}

t.test('consent, fill, click and wait on the standard tier: ok with the rendered results', async (t) => {
  const result = await runToEnd('test-shop-search', { query: 'lamp' })
  t.equal(result.status, 'succeeded', result.outcome_detail ?? 'succeeded')
  t.same(result.recipe, { slug: 'test-shop-search', contract: 1, impl: 1, outcome: 'ok' })
  t.same(result.output, { query: 'lamp', results: [{ name: 'Desk lamp', price: 19.5 }, { name: 'Floor lamp', price: 49 }] })
  t.equal(result.job_type, 'standard')
  t.equal(result.credits_charged, 5, 'standard weight 5 × multiplier 1')
  t.equal(result.matched_locators.step2, 1, 'fill matched the second locator of its chain')
  t.equal(result.matched_locators.step3, 1, 'click matched the second locator of its chain')
  t.equal(result.matched_locators.step4, 0, 'wait_for_selector matched the first')
  t.equal(result.pages_fetched, 1)
  t.equal(queries.at(-1), 'lamp', 'the page searched for the input')
})

t.test('a "no results" marker after the clicks: ok_empty, billed', async (t) => {
  const result = await runToEnd('test-shop-search', { query: 'no such thing' })
  t.equal(result.recipe.outcome, 'ok_empty', result.outcome_detail ?? '')
  t.same(result.output, { query: 'no such thing', results: [] })
  t.equal(result.credits_charged, 5)
})

t.test('hostile input is typed into the field: never a selector, a host or a script', async (t) => {
  const hostile = `'"]); document.body.innerHTML='<li class=result>'; //<script>alert(1)</script> button.search >> css=#x`
  const result = await runToEnd('test-shop-search', { query: hostile })
  t.equal(result.recipe.outcome, 'ok_empty', result.outcome_detail ?? '')
  t.equal(queries.at(-1), hostile, 'the site received the value exactly as given')
  t.same(result.output.results, [], 'no element came from the input')
  t.equal(result.matched_locators.step2, 1, 'the same locators matched')
})

t.test('without dismissing the banner the search button stays covered: layout_changed, not billed', async (t) => {
  const before = queries.length
  const result = await runToEnd('test-shop-no-consent', { query: 'lamp' })
  t.equal(result.status, 'failed')
  t.equal(result.recipe.outcome, 'layout_changed')
  t.match(result.outcome_detail, /^step2: click found no element to act on/, 'the covered button could not be clicked')
  t.equal(result.credits_charged, 0)
  t.equal(queries.length, before, 'the covered search button did nothing')
})

t.test('the same steps on the stealth tier (puppeteer-real-browser, the same page interface)', async (t) => {
  const result = await runToEnd('test-shop-search-stealth', { query: 'lamp' })
  t.equal(result.status, 'succeeded', result.outcome_detail ?? 'succeeded')
  t.equal(result.job_type, 'stealth')
  t.same(result.output, { query: 'lamp', results: [{ name: 'Desk lamp', price: 19.5 }, { name: 'Floor lamp', price: 49 }] })
  t.equal(result.matched_locators.step3, 1, 'click matched the second locator (an XPath first, on ::-p-xpath)')
  t.equal(result.credits_charged, 30)
})
