/**
 * Extraction benchmark: one ~2 MB shop-like page, one job of 25 hooks of every type, against the
 * floor of parsing the same page with cheerio alone. Run: npx tsx bench/extraction.ts [iterations]
 * Prints ms per job for both and `ratio: X.XX` (extraction / floor).
 */
import { pathToFileURL } from 'node:url'
import { load } from 'cheerio'
import { validateExtraction, type ExtractionSpec } from '../domain/extraction.js'
import { runExtraction } from '../fetchers/extraction/index.js'
import { fmt, percentile } from './stats.js'

const TARGET_BYTES = 2 * 1024 * 1024
const WARMUP = 2
const ITERATIONS = Number(process.argv[2] ?? 10)
/** Measured iterations stop early past this, so a loaded 2-core machine still finishes in about a minute. */
const TIME_CAP_MS = 40_000
const MIN_ITERATIONS = 3

/** Deterministic pseudo-random numbers, so every run measures the same page. */
function prng(seed: number) {
  return () => {
    seed = (seed * 1664525 + 1013904223) >>> 0
    return seed / 2 ** 32
  }
}

const WORDS = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua'.split(' ')

export function buildPage(): string {
  const rand = prng(42)
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ')
  const head = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop &ndash; all products</title>
<style>.card{display:grid}.price{color:red}</style>
<script>window.dataLayer=[];function track(e){dataLayer.push(e)}</script>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Shop Inc","url":"https://shop.example"}</script>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"BreadcrumbList","itemListElement":[{"@type":"ListItem","position":1,"name":"Home"},{"@type":"ListItem","position":2,"name":"All"}]}</script>
</head><body><header><nav><ul>${Array.from({ length: 30 }, (_, i) => `<li><a href="/c/${i}">Category ${i}</a></li>`).join('')}</ul></nav></header><main>`
  const parts: string[] = [head]
  let size = head.length
  const offers: string[] = []
  for (let i = 0; size < TARGET_BYTES * 0.7; i++) {
    const price = (rand() * 2000).toFixed(2)
    const hasRating = rand() > 0.2
    const card = `<div class="card product" data-sku="SKU-${i}" id="p${i}">
  <a class="link" href="/product/${i}?ref=grid"><img src="/img/${i}.jpg" alt="Product ${i}" loading="lazy"></a>
  <h3 class="name">Product ${i} ${words(3)}</h3>
  <p class="desc">${words(18)} &amp; more</p>
  <span class="price" data-currency="USD">$${Number(price).toLocaleString('en-US', { minimumFractionDigits: 2 })}</span>
  ${hasRating ? `<span class="rating">${(rand() * 5).toFixed(1)} / 5</span>` : ''}
  <ul class="tags">${Array.from({ length: 3 }, () => `<li>${pick(WORDS)}</li>`).join('')}</ul>
  <span class="stock">${rand() > 0.3 ? 'yes' : 'no'}</span><time datetime="2024-0${1 + (i % 9)}-1${i % 10}">March ${1 + (i % 28)}, 2024</time>
</div>\n`
    if (i < 300) offers.push(`{"@type":"Offer","sku":"SKU-${i}","price":"${price}","priceCurrency":"USD"}`)
    parts.push(card)
    size += card.length
  }
  parts.push('<table id="specs"><thead><tr><th>Model</th><th>Weight</th><th>Price</th></tr></thead><tbody>')
  for (let i = 0; size < TARGET_BYTES * 0.9; i++) {
    const row = `<tr><td>Model ${i}</td><td>${(rand() * 10).toFixed(2)} kg</td><td>€${(rand() * 900).toFixed(2).replace('.', ',')}</td></tr>\n`
    parts.push(row)
    size += row.length
  }
  parts.push('</tbody></table><article>')
  while (size < TARGET_BYTES) {
    const p = `<p>${words(60)}. Contact sales@shop.example or call 555-${Math.floor(1000 + rand() * 8999)}.</p>\n`
    parts.push(p)
    size += p.length
  }
  parts.push(`</article></main><script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Catalog","offers":[${offers.join(',')}]}</script>`)
  parts.push('<footer><p>&copy; 2024 Shop Inc</p></footer></body></html>')
  return parts.join('')
}

export const HOOKS = [
  { hook_id: 'title', type: 'css', selector: 'title' },
  { hook_id: 'names', type: 'css', selector: '.card .name', all_matches: true, max_results: 1000 },
  { hook_id: 'links', type: 'css', selector: 'a.link', attribute: 'href', all_matches: true, max_results: 200 },
  { hook_id: 'nav', type: 'css', selector: 'nav li > a', all_matches: true },
  { hook_id: 'first_price', type: 'css', selector: '.product .price' },
  { hook_id: 'skus', type: 'css', selector: '[data-sku]', attribute: 'data-sku', all_matches: true, max_results: 1000 },
  { hook_id: 'models', type: 'xpath', path: '//table[@id="specs"]//tr/td[1]', all_matches: true, max_results: 500 },
  { hook_id: 'product_count', type: 'xpath', path: 'count(//div[contains(@class, "product")])' },
  { hook_id: 'heading', type: 'xpath', path: '//h3[@class="name"]' },
  { hook_id: 'images', type: 'xpath', path: '//img/@src', all_matches: true, max_results: 100 },
  { hook_id: 'footer', type: 'xpath', path: 'normalize-space(//footer)' },
  { hook_id: 'phones', type: 'regex', pattern: '555-(\\d{4})', group: 1, all_matches: true, max_results: 100 },
  { hook_id: 'emails', type: 'regex', pattern: '[\\w.]+@[\\w.]+\\.\\w+', all_matches: true },
  { hook_id: 'weights', type: 'regex', pattern: '(\\d+\\.\\d+) kg', group: 1, all_matches: true, max_results: 1000 },
  { hook_id: 'copyright', type: 'regex', pattern: '© (\\d{4})', group: 1 },
  { hook_id: 'org', type: 'jsonpath', path: '$[?(@["@type"] === "Organization")].name' },
  { hook_id: 'offer_prices', type: 'jsonpath', path: '$..offers[*].price', all_matches: true, max_results: 1000 },
  { hook_id: 'crumbs', type: 'jsonpath', path: '$..itemListElement[*].name', all_matches: true },
  { hook_id: 'cheap', type: 'jsonpath', path: '$..offers[?(@.price < 100)].sku', all_matches: true },
  {
    hook_id: 'products', type: 'records', container: '.card', max_results: 1000,
    fields: {
      name: { selector: '.name' },
      price: { selector: '.price', transform: ['number'] },
      rating: { selector: '.rating', transform: ['number'] },
      url: { selector: 'a.link', attribute: 'href', transform: ['url'] },
      in_stock: { selector: '.stock', transform: ['boolean'] },
      date: { selector: 'time', transform: ['date'] },
    },
  },
  {
    hook_id: 'rated', type: 'records', container: '.card', max_results: 100,
    fields: { sku: { selector: ':scope', attribute: 'data-sku' }, rating: { selector: '.rating', required: true, transform: ['number'] } },
  },
  {
    hook_id: 'spec_rows', type: 'records', container: '#specs tbody tr', max_results: 1000,
    fields: { model: { selector: 'td:nth-child(1)' }, weight: { selector: 'td:nth-child(2)', transform: ['number'] }, price: { selector: 'td:nth-child(3)', transform: ['number'] } },
  },
  { hook_id: 'tags', type: 'records', container: '.tags', max_results: 50, fields: { first: { selector: 'li', transform: ['uppercase'] } } },
  { hook_id: 'missing', type: 'css', selector: '.does-not-exist' },
  { hook_id: 'paragraphs', type: 'xpath', path: '//article/p', all_matches: true, max_results: 20 },
]

function time(fn: () => unknown): number {
  const start = process.hrtime.bigint()
  fn()
  return Number(process.hrtime.bigint() - start) / 1e6
}

const median = (xs: number[]) => percentile(xs, 50)

async function main() {
  const checked = validateExtraction({ hooks: HOOKS })
  if (!checked.value) throw new Error(`bench hooks do not validate: ${JSON.stringify(checked.errors)}`)
  const spec: ExtractionSpec = checked.value
  const html = buildPage()
  const page = { url: 'https://shop.example/all', html, body: html, contentType: 'text/html; charset=utf-8' }
  console.log(`page: ${fmt(html.length / 1024 / 1024, 2)} MB, hooks: ${spec.hooks.length}, up to ${ITERATIONS} iterations after ${WARMUP} warm-up`)

  const first = runExtraction(spec, page)
  const broken = first.hooks.filter((h) => h.status !== 'ok' && h.hook_id !== 'missing')
  if (broken.length > 0) throw new Error(`unexpected statuses: ${JSON.stringify(broken)}`)

  const floor: number[] = []
  const job: number[] = []
  const started = performance.now()
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    if (job.length >= MIN_ITERATIONS && performance.now() - started > TIME_CAP_MS) break
    // Interleaved, so both see the same machine load and GC state.
    const f = time(() => load(html))
    const j = time(() => runExtraction(spec, page))
    if (i >= WARMUP) {
      floor.push(f)
      job.push(j)
    }
  }
  console.log(`iterations measured: ${job.length}`)
  const f = median(floor)
  const j = median(job)
  console.log(`floor (cheerio.load): ${fmt(f)} ms (median; min ${fmt(Math.min(...floor))})`)
  console.log(`extraction job:       ${fmt(j)} ms per job (median; min ${fmt(Math.min(...job))})`)
  console.log(`ratio: ${fmt(j / f, 2)}`)
}

// Only when run as a script, so the page builder and hooks can be imported elsewhere.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
