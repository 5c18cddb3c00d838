/**
 * Issue 31: the recipe runtime's CSS/XPath selection and the content-monitor runner's observe step run in the CPU
 * pool with hard deadlines. Before, both ran on the main thread: the :has selector on 300 nested divs (under the
 * depth cap) held the event loop until it finished, and normalising a 20,000-line page held it for seconds.
 */
import t from 'tap'
import type { Rule } from '../../domain/content-monitor/events.js'
import { observe } from '../../domain/content-monitor/rules.js'
import type { Contract, Recipe } from '../../domain/recipe/types.js'
import { offThreadSelection } from '../../fetchers/recipe/off-thread.js'
import { runRecipe, type RecipeFetch } from '../../fetchers/recipe/runtime.js'
import { closeCpuPool, warmCpuPool } from '../../fetchers/workers/index.js'
import { observeOffThread } from '../../processors/content-monitor-observe.js'

t.teardown(closeCpuPool)
await warmCpuPool()

/** The longest the event loop went without running a 10 ms timer while `work` ran. */
const worstGapWhile = async <T>(work: () => Promise<T>): Promise<{ value: T; worstGapMs: number }> => {
  let last = performance.now()
  let worstGapMs = 0
  const timer = setInterval(() => {
    const now = performance.now()
    worstGapMs = Math.max(worstGapMs, now - last)
    last = now
  }, 10)
  try {
    const value = await work()
    worstGapMs = Math.max(worstGapMs, performance.now() - last)
    return { value, worstGapMs }
  } finally {
    clearInterval(timer)
  }
}
// Loose: the machine is shared with other test runs; before, the loop stopped for as long as the work took.
const RESPONSIVE_MS = 500

const HAS_SELECTOR = 'div div div div div div:has(div div div div)'
const nested = (n: number) => `<html><body>${'<div>'.repeat(n)}x${'</div>'.repeat(n)}</body></html>`

const contract = (implementation: Pick<Contract['implementation'], 'assertions' | 'extract'>): Contract => ({
  contract: 1, engine: 'light', multiplier: 1, credits_per_unit: 1, billing: { unit: 'run' },
  input_schema: { type: 'object', properties: {} }, output_schema: { type: 'object' }, example: { input: {}, output: {} },
  implementation: { impl: 1, steps: [{ request: { url: 'https://site.example.org/page' } }], output: { value: '$extract.value' }, ...implementation },
} as Contract)
const recipe = (c: Contract): Recipe => ({ slug: 'nested', title: 'Nested', category: 'Test', status: 'beta', hosts: ['https://site.example.org'], contracts: [c] })
const serve = (html: string): RecipeFetch => async (request) =>
  ({ ok: true, response: { status: 200, headers: { 'content-type': 'text/html' }, body: html, url: request.url } })
const runOn = (c: Contract, html: string, deadlineMs: number) =>
  runRecipe({ recipe: recipe(c), contract: c, input: {}, maxPages: 1, fetch: serve(html), selection: offThreadSelection('hostile', deadlineMs) })

t.test('a recipe\'s pathological selector runs in a worker: the event loop keeps turning, the run ends at the deadline with extraction_timeout', async (t) => {
  const paths = {
    extraction: contract({ assertions: [], extract: { value: { locators: [{ css: HAS_SELECTOR }] } } }),
    assertion: contract({ assertions: [{ outcome: 'not_found', select: [{ css: HAS_SELECTOR }] }], extract: { value: { locators: [{ css: 'body' }] } } }),
  }
  for (const [path, c] of Object.entries(paths)) {
    const { value: result, worstGapMs } = await worstGapWhile(() => runOn(c, nested(300), 1_500))
    t.ok(worstGapMs < RESPONSIVE_MS, `${path}: the event loop's worst gap was ${worstGapMs.toFixed(0)} ms`)
    t.equal(result.outcome, 'timeout', `${path}: the run timed out`)
    t.match(result.detail, /^extraction_timeout: /, `${path}: ${result.detail}`)
  }
})

t.test('the same recipe on a small page still extracts (selection in the worker gives the same values)', async (t) => {
  const c = contract({ assertions: [], extract: { value: { locators: [{ css: 'p.price' }, { xpath: '//span[@id="price"]' }] } } })
  const result = await runOn(c, '<html><body><span id="price">42 EUR</span></body></html>', 10_000)
  t.equal(result.outcome, 'ok', result.detail ?? '')
  t.same(result.output, { value: '42 EUR' })
  t.same(result.matched, { value: 1 }, 'the XPath fallback matched')
})

t.test('a content monitor\'s observe step runs in a worker: same snapshot, the event loop keeps turning, the deadline fails the run', async (t) => {
  const rule: Rule = { type: 'text_appeared', config: { needle: 'In Stock', caseSensitive: false } } as Rule
  const small = { body: '<html><body><p>Now in stock</p></body></html>', statusCode: 200, contentLength: 44, capturedAt: '2026-11-01T00:00:00.000Z' }
  const inThread = observe(small)
  t.same(await observeOffThread('o1', small, rule, 10_000), { _tag: 'Observed', snapshot: inThread.snapshot, needle_present: true })

  // The 20,000-line page of the report (7.3 s on the main thread there).
  const lines = Array.from({ length: 20_000 }, (_, i) => `<p>line ${i} some words here</p>`).join('\n')
  const page = { body: `<html><body>${lines}</body></html>`, statusCode: 200, contentLength: lines.length, capturedAt: small.capturedAt }
  const { value: timedOut, worstGapMs } = await worstGapWhile(() => observeOffThread('hostile', page, rule, 300))
  t.ok(worstGapMs < RESPONSIVE_MS, `the event loop's worst gap was ${worstGapMs.toFixed(0)} ms`)
  t.match(timedOut, { _tag: 'Failed', error_code: 'extraction_timeout', status_code: 200 }, 'past its deadline the run fails with extraction_timeout')
})
