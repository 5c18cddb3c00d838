import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import * as cheerio from 'cheerio'
import { HOOK_TYPES, TRANSFORMS, validateExtraction, type ExtractionHook, type ExtractionSpec } from '../../domain/extraction.js'
import {
  applyTransforms, PageContext, parseBoolean, parseDate, parseNumber, runExtraction, runHooks, type PageInput,
} from '../../fetchers/extraction/index.js'
import { runXPath } from '../../fetchers/extraction/xpath.js'
import { RegexBudget } from '../../fetchers/extraction/regex.js'
import { MAX_DOM_DEPTH } from '../../domain/content-limits.js'
import { parseXPath, xpath, type XNodeSetValue } from '../../fetchers/extraction/xpath-engine.js'

const FIXTURES = fileURLToPath(new URL('../fixtures/extraction/', import.meta.url))

interface Case {
  readonly page: string
  readonly url: string
  readonly contentType: string
  readonly hooks: Array<Record<string, unknown> & { expect: Record<string, unknown> }>
}
const cases = readdirSync(FIXTURES).filter((f) => f.endsWith('.cases.json')).sort()
  .map((file) => ({ file, ...(JSON.parse(readFileSync(FIXTURES + file, 'utf8')) as Case) }))

/** What a tier hands over: markup as `html` (light tier: HTML/XML responses only), the response text as `body`. */
function pageOf(c: Case): PageInput {
  const text = readFileSync(FIXTURES + c.page, 'utf8')
  return { url: c.url, body: text, contentType: c.contentType, ...(/html|xml/.test(c.contentType) ? { html: text } : {}) }
}

const spec = (hooks: Array<Record<string, unknown>>): ExtractionSpec => {
  const checked = validateExtraction({ hooks })
  if (!checked.value) throw new Error(`invalid test hooks: ${JSON.stringify(checked.errors)}`)
  return checked.value
}

/** Hooks straight to the runtime, bypassing validation (as a stored job from an older version could). */
const raw = (hook: Partial<ExtractionHook> & Pick<ExtractionHook, 'hook_id' | 'type'>): ExtractionHook =>
  ({ all_matches: false, max_results: 50, ...hook })

t.test('the fixture corpus: every hook gives its expected result', async (t) => {
  t.ok(cases.length >= 6, 'corpus is present')
  for (const c of cases) {
    await t.test(c.file, async (t) => {
      const hooks = c.hooks.map(({ expect: _, ...hook }) => hook)
      const result = await runExtraction(spec(hooks), pageOf(c))
      t.equal(result.hooks.length, hooks.length, 'one entry per hook, in order')
      c.hooks.forEach((hook, i) => {
        const actual = result.hooks[i] as unknown as Record<string, unknown>
        t.equal(actual.hook_id, hook.hook_id)
        t.equal(actual.type, hook.type)
        const picked = Object.fromEntries(Object.keys(hook.expect).map((k) => [k, actual[k]]))
        t.strictSame(picked, hook.expect, `${hook.hook_id}`)
      })
    })
  }
})

t.test('the corpus covers every hook type, status and transform', async (t) => {
  const hooks = cases.flatMap((c) => c.hooks)
  t.same(new Set(hooks.map((h) => h.type)), new Set(HOOK_TYPES))
  t.same(new Set(hooks.map((h) => h.expect.status)), new Set(['ok', 'no_match', 'error']))
  const transforms = hooks.flatMap((h) => Object.values((h.fields ?? {}) as Record<string, { transform?: string[] }>).flatMap((f) => f.transform ?? []))
  t.same(new Set(transforms), new Set(TRANSFORMS))
  t.ok(hooks.some((h) => h.expect.truncated === true), 'some hook is truncated')
  t.ok(hooks.some((h) => (h.expect.skipped_records as number) > 0), 'some records are skipped')
})

t.test('transform: number is locale-aware', async (t) => {
  const cases: Array<[unknown, number | null]> = [
    ['1,234.56', 1234.56], ['1.234,56', 1234.56], ['$12', 12], ['12 %', 12], ['−3', -3], ['-$4.50', -4.5], ['$-4.50', -4.5],
    ['1 234 567,89 €', 1234567.89], ['1\u00a0234,5', 1234.5], ["CHF 1'099.10", 1099.1], ['12,5', 12.5], ['0,125', 0.125],
    ['1,234', 1234], ['1.234', 1.234], ['1.234.567', 1234567], ['1,234,567', 1234567], ['.5', 0.5], ['Price: 42.', 42],
    ['SKU-12', 12], ['3-5 days', 3], ['12 34', 12], ['(1,024 reviews)', 1024], ['n/a', null], ['', null], ['–', null],
    [7.5, 7.5], [Number.NaN, null], [true, null],
  ]
  for (const [input, expected] of cases) t.equal(parseNumber(input), expected, `${JSON.stringify(input)} → ${expected}`)
})

t.test('transforms: integer, trim, lowercase, uppercase, boolean, url, date, html_text', async (t) => {
  const url = 'https://shop.example/a/b?x=1'
  const one = (value: unknown, name: (typeof TRANSFORMS)[number]) => applyTransforms(value, [name], url)
  t.equal(one('1.999,90 €', 'integer'), 1999)
  t.equal(one('-0.4', 'integer'), 0)
  t.equal(one('1.234 Bewertungen', 'integer'), 1234, 'a lone dot before three digits groups thousands in an integer')
  t.equal(one('1.234', 'number'), 1.234, 'but stays a decimal point for number')
  t.equal(one('0.234', 'integer'), 0)
  t.equal(one('4.5', 'integer'), 4)
  t.equal(one('none', 'integer'), null)
  t.equal(one('  a  b  ', 'trim'), 'a  b')
  t.equal(one('ÄBC Straße', 'lowercase'), 'äbc straße')
  t.equal(one('straße', 'uppercase'), 'STRASSE')
  for (const [input, expected] of [['true', true], ['Yes', true], ['1', true], [' on ', true], ['FALSE', false], ['no', false], ['0', false], ['off', false], ['maybe', null], ['', null]] as const) {
    t.equal(parseBoolean(input), expected, `boolean ${JSON.stringify(input)}`)
  }
  t.equal(one('../c', 'url'), 'https://shop.example/c')
  t.equal(one('//cdn.example/x.png', 'url'), 'https://cdn.example/x.png')
  t.equal(one('?page=2', 'url'), 'https://shop.example/a/b?page=2')
  t.equal(one('mailto:a@b.example', 'url'), 'mailto:a@b.example')
  t.equal(one('   ', 'url'), null)
  t.equal(one('http://[bad', 'url'), null, 'an unparseable URL gives null, not an exception')
  t.equal(one('<p>Fish &amp; <b>chips</b></p><script>x()</script><p>daily</p>', 'html_text'), 'Fish & chips daily')
  t.equal(one('plain', 'html_text'), 'plain')
})

t.test('transform: date to ISO 8601', async (t) => {
  const cases: Array<[string, string | null]> = [
    ['2024-03-05', '2024-03-05'], ['05.03.2024', '2024-03-05'], ['5.3.2024', '2024-03-05'], ['03/05/2024', '2024-03-05'],
    ['25/12/2024', '2024-12-25'], ['2024/12/25', '2024-12-25'], ['March 5, 2024', '2024-03-05'], ['5 March 2024', '2024-03-05'],
    ['Tue, 05 Mar 2024 09:30:00 GMT', '2024-03-05T09:30:00.000Z'], ['2024-03-05T17:30:00+01:00', '2024-03-05T16:30:00.000Z'],
    ['05.03.2024 14:30', '2024-03-05T14:30:00'], ['31.02.2024', null], ['2024-13-01', null], ['Model 3', null],
    ['yesterday', null], ['', null], ['12/31', null],
  ]
  for (const [input, expected] of cases) t.equal(parseDate(input), expected, `${JSON.stringify(input)} → ${expected}`)
})

t.test('transforms chain in order, null flows through, failures give null', async (t) => {
  t.equal(applyTransforms(' 1,5 KG ', ['trim', 'lowercase', 'number'], 'https://x.example/'), 1.5)
  t.equal(applyTransforms('abc', ['number', 'uppercase'], 'https://x.example/'), null)
  t.equal(applyTransforms(null, ['trim'], 'https://x.example/'), null)
  t.equal(applyTransforms('/p', ['url', 'uppercase'], 'https://x.example/'), 'HTTPS://X.EXAMPLE/P')
  t.equal(applyTransforms('/p', ['url'], 'not a url'), null, 'a throwing transform yields null')
})

t.test('records: required fields, defaults and max_results on rows', async (t) => {
  const html = `<ul>
    <li><b>A</b><i>1</i></li><li><b>B</b></li><li><b></b><i>3</i></li><li><b>D</b><i>x</i></li><li><b>E</b><i>5</i></li>
  </ul>`
  const result = await runExtraction(spec([
    { hook_id: 'r', type: 'records', container: 'li', max_results: 2, fields: { name: { selector: 'b', required: true }, n: { selector: 'i', transform: ['number'], default: -1 } } },
  ]), { url: 'https://x.example/', html })
  t.strictSame(result.hooks[0], {
    hook_id: 'r', type: 'records', status: 'ok', result: [{ name: 'A', n: 1 }, { name: 'B', n: -1 }],
    truncated: true, total_matched: 5, skipped_records: 1,
  }, 'empty required name drops the row; unparseable and missing numbers take the default')
})

t.test('records fields find what cheerio finds inside each container (selectors are compiled once)', async (t) => {
  for (const page of ['nested-lists.html', 'product-grid.html']) {
    // Number every element, then compare the numbers a records hook returns with per-container cheerio lookups.
    const $ = cheerio.load(readFileSync(FIXTURES + page, 'utf8'))
    $('*').each((i, el) => { $(el).attr('data-n', String(i)) })
    const html = $.html()
    const containers = ['li.cat', '#tree > li', 'ul', 'li', 'article', 'main div', '.product, .rating']
    const selectors = [
      '.name', 'span', ':scope > .count', '> .count', ':scope', ':scope .name', 'ul .name', 'li .name', 'li > span',
      ':scope > ul > li > .name', 'span + span', '.cat .count', 'ul li:first-child .name', 'span:not(.count)',
      'span:nth-of-type(2)', 'li:has(.count) .name', 'li:first .name', 'span:eq(1)', '+ li', '~ article', 'a, .name', '*',
      'div .amount', 'article .title', '.product .title', ':scope[data-sku] a', 'img[alt=""]', 'h2:contains("Blazer")',
    ]
    const fields = Object.fromEntries(selectors.map((sel, i) => [`f${i}`, { selector: sel, attribute: 'data-n' }]))
    const hooks = containers.map((container, i) => ({ hook_id: `h${i}`, type: 'records', container, fields }))
    const result = await runExtraction(spec(hooks), { url: 'https://x.example/', html })
    containers.forEach((container, h) => {
      const expected = $(container).toArray().map((c) => Object.fromEntries(selectors.map((sel, i) => [`f${i}`, $(c).find(sel).attr('data-n') ?? null])))
      t.strictSame(result.hooks[h].result, expected.slice(0, 50), `${page}: container ${container}`)
    })
  }
})

t.test('css and regex: first match vs all_matches, max_results, truncation', async (t) => {
  const html = `<p>a1</p><p>a2</p><p>a3</p><p id="x">b</p>`
  const result = await runExtraction(spec([
    { hook_id: 'first', type: 'css', selector: 'p' },
    { hook_id: 'two', type: 'css', selector: 'p', all_matches: true, max_results: 2 },
    { hook_id: 'exact', type: 'css', selector: 'p', all_matches: true, max_results: 4 },
    { hook_id: 'digits', type: 'regex', pattern: 'a(\\d)', group: 1, all_matches: true, max_results: 2 },
    { hook_id: 'empty_matches', type: 'regex', pattern: 'z*', all_matches: true, max_results: 3 },
    { hook_id: 'unmatched_group', type: 'regex', pattern: 'b(\\d)?', group: 1 },
  ]), { url: 'https://x.example/', html })
  const byId = Object.fromEntries(result.hooks.map((h) => [h.hook_id, h]))
  t.match(byId.first, { status: 'ok', result: 'a1', truncated: false, total_matched: 4 })
  t.match(byId.two, { status: 'ok', result: ['a1', 'a2'], truncated: true, total_matched: 4 })
  t.match(byId.exact, { status: 'ok', result: ['a1', 'a2', 'a3', 'b'], truncated: false, total_matched: 4 })
  t.match(byId.digits, { status: 'ok', result: ['1', '2'], truncated: true, total_matched: 3 })
  t.match(byId.empty_matches, { status: 'ok', result: ['', '', ''], truncated: true }, 'empty matches advance instead of looping')
  t.match(byId.unmatched_group, { status: 'ok', result: null, total_matched: 1 }, 'a group that took no part is null')
})

t.test('patterns that backtrack catastrophically in JavaScript run in linear time (RE2 semantics)', async (t) => {
  const body = `${'a'.repeat(5000)}!`
  const started = Date.now()
  const result = runExtraction({
    hooks: ['(a+)+$', '(a|a)*$', '(a|aa)+$', '(?:a|a?)+$', '(a|b|ab)*c', '[\\s\\S]*?[\\s\\S]*?[\\s\\S]*?x']
      .map((pattern, i) => raw({ hook_id: `p${i}`, type: 'regex', pattern })),
  }, { url: 'https://x.example/', body, contentType: 'text/plain' })
  t.ok(Date.now() - started < 5_000, 'returns within 5 s (JavaScript\'s engine takes longer than the universe\'s age on some)')
  t.same(result.hooks.map((h) => h.status), ['no_match', 'ok', 'no_match', 'ok', 'no_match', 'no_match'])
})

t.test('RegexBudget: the regex hooks of a job share one budget; past it they end with an error', async (t) => {
  let now = 0
  const budget = new RegexBudget(100, () => now)
  const page = new PageContext({ url: 'https://x.example/', body: 'x1 x2', contentType: 'text/plain' })
  const hook = raw({ hook_id: 'x', type: 'regex', pattern: 'x(\\d)', group: 1, all_matches: true })
  t.match(budget.run(hook, page), { status: 'ok', result: ['1', '2'] })
  now = 150 // the clock moves while a hook runs: what it took is charged when it ends
  const slow = new RegexBudget(100, () => (now += 120))
  t.match(slow.run(hook, page), { status: 'error', error: /exceeded the job's regex budget of 100 ms/ })
  t.match(slow.run(hook, page), { status: 'error', error: /used up by earlier regex hooks/ }, 'later hooks are not run')
})

t.test('regex searches visible text of markup, raw text otherwise', async (t) => {
  const html = '<html><head><title>T1</title><style>.x{}</style></head><body><p>Total: 5</p><script>var Total = 9</script><noscript>Total: 7</noscript><template>Total: 8</template><div>line2</div></body></html>'
  const hooks = spec([
    { hook_id: 'totals', type: 'regex', pattern: 'Total:? =? ?(\\d)', group: 1, all_matches: true },
    { hook_id: 'lines', type: 'regex', pattern: '^\\w+$', all_matches: true },
  ])
  const markup = await runExtraction(hooks, { url: 'https://x.example/', html, body: html, contentType: 'text/html' })
  t.same(markup.hooks[0].result, ['5'], 'scripts, styles, noscript and templates are not visible')
  t.same(markup.hooks[1].result, ['line2'], 'one line per block; ^ and $ match at line ends')
  const text = await runExtraction(hooks, { url: 'https://x.example/', body: html, contentType: 'text/plain' })
  t.same(text.hooks[0].result, ['5', '9', '7', '8'])
})

t.test('statuses for pages a hook cannot read', async (t) => {
  const hooks = spec([{ hook_id: 'j', type: 'jsonpath', path: '$.a' }, { hook_id: 'c', type: 'css', selector: 'p' }])
  const notJson = await runExtraction(hooks, { url: 'https://x.example/', body: '{"a": 1,', contentType: 'application/json' })
  t.match(notJson.hooks[0], { status: 'error', error: 'response body is not valid JSON' })
  t.match(notJson.hooks[1], { status: 'error', error: /no HTML/ })
  const untyped = await runExtraction(hooks, { url: 'https://x.example/', html: '{"a": [1]}' })
  t.match(untyped.hooks[0], { status: 'ok', result: [1] }, 'an untyped response that parses as JSON is JSON')
  const noLd = await runExtraction(hooks, { url: 'https://x.example/', html: '<p>x</p>', contentType: 'text/html' })
  t.match(noLd.hooks[0], { status: 'no_match', result: null }, 'an HTML page without JSON-LD has nothing to match')
  t.match(noLd.hooks[1], { status: 'ok', result: 'x' })
  const empty = await runExtraction({ hooks: [] }, { url: 'https://x.example/' })
  t.same(empty, { hooks: [] })
})

t.test('the //x → descendant::x rewrite keeps XPath results, positional predicates included', async (t) => {
  const exprs = ['//li', '//li[1]', '//li[last()]', '//li[position() < 2]', '//li[@class]', '//li[.//li]', '//span[2]', '//ul//li[1]',
    '//li[count(span) = 2]', '(//li)[3]', '//li[@data-id][2]', '//li[contains(., "phones")]', '//text()[1]', '//li[number(@data-id) > 2]', '//dd[1]']
  const page = new PageContext({ url: 'https://x.example/', html: readFileSync(`${FIXTURES}nested-lists.html`, 'utf8') })
  const options = { node: page.xpathDocument(), isHtml: true, allowAnyNamespaceForNoPrefix: true }
  const orders = (value: unknown) => (value as XNodeSetValue).toArray().map((n) => n.order)
  for (const e of exprs) t.same(orders(parseXPath(e).evaluate(options)), orders(xpath.parse(e).evaluate(options)), e)
  t.same(orders(parseXPath('//li[1]').evaluate(options)).length, 4, 'first li of each list, not of the page')
})

t.test('an XPath that would run for ages ends with status error within its budget', async (t) => {
  const html = `<ul>${Array.from({ length: 5000 }, (_, i) => `<li>item ${i % 50}</li>`).join('')}</ul>`
  const page = new PageContext({ url: 'https://x.example/', html })
  const started = Date.now()
  const slow = runXPath(raw({ hook_id: 'slow', type: 'xpath', path: 'count(//li[. = //li])' }), page, 200)
  t.ok(Date.now() - started < 5000, 'returns within 5 s')
  t.match(slow, { status: 'error', error: 'XPath exceeded its time budget of 200 ms' })
  t.match(runXPath(raw({ hook_id: 'fast', type: 'xpath', path: 'count(//li)' }), page, 200), { status: 'ok', result: 5000 }, 'the next evaluation has a fresh budget')
  const job = await runHooks({
    hooks: [
      raw({ hook_id: 'slow1', type: 'xpath', path: 'count(//li[. = //li])' }),
      raw({ hook_id: 'slow2', type: 'xpath', path: 'count(//li[. = //li])' }),
      raw({ hook_id: 'css', type: 'css', selector: 'li' }),
      raw({ hook_id: 're', type: 'regex', pattern: 'item 7' }),
    ],
  }, page, 300)
  t.match(job.hooks.map((h) => h.status), ['error', 'error', 'error', 'ok'], 'the job budget bounds all main-thread hooks together')
  t.match(job.hooks[0].error, /XPath exceeded its time budget of 3\d\d ms/)
  t.match(job.hooks[2].error, /used up by earlier hooks/)
})

t.test('XPath runtime errors are hook errors; deep nesting is handled up to the depth cap, refused past it', async (t) => {
  const failing = await runExtraction({ hooks: [raw({ hook_id: 'x', type: 'xpath', path: '//a:b' })] }, { url: 'https://x.example/', html: '<a>1</a>' })
  t.match(failing.hooks[0], { status: 'error', error: /XPath evaluation failed/ })
  const hooks = spec([
    { hook_id: 'css', type: 'css', selector: '.deep' },
    { hook_id: 'xpath', type: 'xpath', path: 'count(//div)' },
    { hook_id: 'text', type: 'regex', pattern: 'bottom' },
    { hook_id: 'rows', type: 'records', container: 'span', fields: { t: { selector: ':scope' } } },
  ])
  const nested = (depth: number) => `${'<div>'.repeat(depth)}<span class="deep">bottom</span>${'</div>'.repeat(depth)}`
  const depth = MAX_DOM_DEPTH - 10
  const result = await runExtraction(hooks, { url: 'https://x.example/', html: nested(depth) })
  t.same(result.hooks.map((h) => [h.status, h.result]), [['ok', 'bottom'], ['ok', depth], ['ok', 'bottom'], ['ok', [{ t: 'bottom' }]]])
  const tooDeep = await runExtraction(hooks, { url: 'https://x.example/', html: nested(2_000) })
  t.same(tooDeep.hooks.map((h) => [h.status, h.error]), hooks.hooks.map(() => ['error', `the page nests elements more than ${MAX_DOM_DEPTH} deep`]))
})

t.test('the page is parsed once per job, whatever the number of hooks', async (t) => {
  /** Records every parsed document a hook asked the page for: one parse per job gives one. */
  class CountingPage extends PageContext {
    readonly parsed = new Set<unknown>()
    override dom() {
      const $ = super.dom()
      if ($) this.parsed.add($)
      return $
    }
  }
  const c = cases.find((x) => x.page === 'product-grid.html')!
  // html_text parses its own small fragments; leave it out to count page parses only.
  const hooks = c.hooks.map(({ expect: _, ...hook }) => hook)
    .map((h) => (h.type === 'records' ? { ...h, fields: Object.fromEntries(Object.entries(h.fields as object).filter(([name]) => name !== 'tooltip')) } : h))
  t.ok(new Set(hooks.map((h) => h.type)).size >= 4)
  const page = new CountingPage(pageOf(c))
  const result = await runHooks(spec(hooks), page)
  t.equal(result.hooks.length, hooks.length)
  const expected = c.hooks.map((h) => h.expect.result)
  t.same(result.hooks.map((h) => h.result).filter((_, i) => hooks[i].type !== 'records'), expected.filter((_, i) => hooks[i].type !== 'records'))
  t.equal(page.parsed.size, 1, 'one parsed document for the css, xpath, regex and records hooks together')
})
