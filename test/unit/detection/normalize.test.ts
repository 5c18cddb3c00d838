import t from 'tap'
import { diffLines, MAX_EDIT_LENGTH } from '../../../domain/detection/diff.js'
import { fingerprintOf, fingerprintVersion } from '../../../domain/detection/fingerprint.js'
import { NORMALIZATION_VERSION, normalizeExtraction, normalizeHtml, normalizeJson, type Normalized } from '../../../domain/detection/normalize.js'

const page = (body: string) => `<html><head><title>t</title></head><body>${body}</body></html>`

t.test('text mode keeps visible text blocks and drops what is never seen', async (t) => {
  const result = normalizeHtml(page(`<h1> Big   news </h1><!-- c --><script>x()</script><style>p{}</style><noscript>n</noscript>
    <form><input type="hidden" name="csrf" value="abc"><input name="q" value="visible?"></form><p>Line <b>one</b></p><div hidden>h</div>`), { ignoreSelectors: [] })
  t.same(result, { ok: true, lines: ['Big news', 'Line one'] })
})

t.test('ignore_selectors are masked before reading, CSS and (through the select function) anything else', async (t) => {
  t.same(normalizeHtml(page('<p class="ad">Ad 123</p><p>Kept</p><time>12:00</time>'), { ignoreSelectors: ['.ad', 'time'] }), { ok: true, lines: ['Kept'] })
})

t.test('selector mode reads only the matched nodes; no match is selector_missing', async (t) => {
  const html = page('<p>Header</p><div id="price">$10 <small>incl. tax</small></div><span class="v">a</span><span class="v">b</span>')
  t.same(normalizeHtml(html, { selector: '#price', ignoreSelectors: [] }), { ok: true, lines: ['$10 incl. tax'] })
  t.same(normalizeHtml(html, { selector: '#price', ignoreSelectors: ['small'] }), { ok: true, lines: ['$10'] })
  t.same(normalizeHtml(html, { selector: '.v', ignoreSelectors: [] }), { ok: true, lines: ['a', 'b'] })
  t.same(normalizeHtml(html, { selector: '#gone', ignoreSelectors: [] }), { ok: false, reason: 'selector_missing' })
})

t.test('json mode: canonical leaf lines with sorted keys and field paths', async (t) => {
  t.same(normalizeJson('{"b":[1,{"y":"two  words","x":null}],"a":{},"weird key":true}'), {
    ok: true, lines: ['$.a: {}', '$.b[0]: 1', '$.b[1].x: null', '$.b[1].y: "two words"', '$["weird key"]: true'],
  })
  t.same(normalizeJson('{"a": "1"}'), { ok: true, lines: ['$.a: "1"'] }, 'a string "1" stays apart from the number 1')
  t.same(normalizeJson('<html>'), { ok: false, reason: 'not_json' })
})

t.test('extract mode: hook values only, run-varying metadata ignored', async (t) => {
  const run = (price: unknown, total: number) => normalizeExtraction({
    hooks: [
      { hook_id: 'title', type: 'css', status: 'ok', result: 'Shoe', truncated: false, total_matched: total, skipped_records: 0 },
      { hook_id: 'offers', type: 'records', status: 'ok', result: [{ price }], truncated: total > 1, total_matched: total, skipped_records: 0 },
    ],
  })
  t.same(run(10, 1), { ok: true, lines: ['offers[0].price: 10', 'title: "Shoe"'] })
  t.same(run(10, 7), run(10, 1), 'match counts and truncation are not content')
  const linesOf = (n: Normalized) => (n.ok ? n.lines : [])
  t.same(diffLines(linesOf(run(10, 1)), linesOf(run(12, 1))).lines,
    ['-offers[0].price: 10', '+offers[0].price: 12'], 'the diff names the field')
  t.same(normalizeExtraction(undefined), { ok: false, reason: 'no_extraction' })
})

t.test('change ratio examples of the README', async (t) => {
  const ten = ['one two three four five six seven eight nine ten']
  t.equal(diffLines(ten, ten).change_ratio, 0, 'no change: 0')
  t.equal(diffLines(['a b c d e f g h', 'price 10'], ['a b c d e f g h', 'price 12']).change_ratio, 0.4, '2 out + 2 in over 10 tokens')
  t.equal(diffLines(['a b c'], ['a b c', 'd']).change_ratio, 0.25, 'one token added to three: 1 / 4')
  t.equal(diffLines(['old words here'], ['new text']).change_ratio, 1, 'everything replaced: capped at 1')
  t.equal(diffLines([], ['new']).change_ratio, 1, 'from nothing: 1')
})

t.test('a huge change is bounded: whole old against whole new, ratio 1', async (t) => {
  const before = Array.from({ length: MAX_EDIT_LENGTH * 2 }, (_, i) => `line ${i}`)
  const after = Array.from({ length: MAX_EDIT_LENGTH * 2 }, (_, i) => `other ${i}`)
  const started = performance.now()
  const diff = diffLines(before, after)
  t.ok(performance.now() - started < 5_000, 'returns promptly')
  t.equal(diff.truncated, true)
  t.equal(diff.change_ratio, 1)
  t.equal(diff.lines.length, before.length + after.length)
})

t.test('fingerprints carry the normalization version', async (t) => {
  t.equal(fingerprintVersion(fingerprintOf(['a'])), NORMALIZATION_VERSION)
  t.not(fingerprintOf(['a'], NORMALIZATION_VERSION + 1), fingerprintOf(['a']), 'a new version never matches an old fingerprint')
  t.not(fingerprintOf(['a b']), fingerprintOf(['a', 'b']), 'line structure counts')
})

t.test('rule-based summary from the diff', async (t) => {
  const { ruleSummary } = await import('../../../domain/detection/rule-summary.js')
  t.equal(ruleSummary(['-Price: $129.99', '+Price: $119.99', '+New dark theme', '+Faster']), 'Price changed from $129.99 to $119.99; 2 lines added')
  t.equal(ruleSummary(['-$.product.price: 129.99', '+$.product.price: 119.99']), '$.product.price changed from 129.99 to 119.99')
  t.equal(ruleSummary(['-Ships within two business days.']), '1 line removed')
  t.equal(ruleSummary(['-Open today', '+Closed']), '"Open today" changed to "Closed"')
})

t.test('control bytes of a page (ESC sequences, NUL, DEL, C1) never reach the lines diffs, summaries, webhooks and e-mails come from (issue 32)', async (t) => {
  const hostile = 'Price \u001b[31m$10\u001b[0m\u0007 \u0000end\u007f \u009b2J'
  const html = normalizeHtml(page(`<p>${hostile}</p>`), { ignoreSelectors: [] })
  // The HTML parser itself drops NUL; JSON below keeps it (escaped).
  t.same(html, { ok: true, lines: ['Price ␛[31m$10␛[0m␇ end␡ \uFFFD2J'] }, 'each shown as its control picture')
  const json = normalizeJson(JSON.stringify({ a: hostile }))
  t.ok(json.ok && json.lines.every((line) => !/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(line)), `json lines: ${JSON.stringify(json)}`)
  const diff = diffLines(['Price $9'], html.ok ? html.lines : [])
  t.notMatch(diff.lines.join('\n'), /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/, 'the diff carries none')
  t.equal(NORMALIZATION_VERSION, 3, 'a new normalization (3: noise, content-type aware text): baselines of the old one re-baseline instead of alerting')
})
