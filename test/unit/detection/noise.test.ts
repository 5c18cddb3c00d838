import t from 'tap'
import { ALL_NOISE, NO_NOISE, quietJsonLine, quietText } from '../../../domain/detection/noise.js'
import { normalizeBody, normalizeHtml, normalizeJson } from '../../../domain/detection/normalize.js'
import { diffLines } from '../../../domain/detection/diff.js'

/** Each noise kind, as live pages write it, and what it reads after normalisation. */
const NOISE: ReadonlyArray<readonly [string, string]> = [
  ['Updated 2026-12-02T15:49:11Z', 'Updated ‹date›'],
  ['Published 2026-12-02 15:49', 'Published ‹date›'],
  ['Wed, 02 Dec 2026 15:49:11 GMT', '‹date› ‹time›'],
  ['December 2, 2026', '‹date›'],
  ['2 December 2026 at 3:49 pm', '‹date› at ‹time›'],
  ['Today is Wednesday', 'Today is ‹date›'],
  ['Last build 12/02/26', 'Last build ‹date›'],
  ['Server time 15:49:11 UTC', 'Server time ‹time›'],
  ['It is 3 PM here', 'It is ‹time› here'],
  ['Posted 5 minutes ago', 'Posted ‹ago›'],
  ['an hour ago · 3h ago · just now', '‹ago› · ‹ago› · ‹ago›'],
  ['1,234 views', '‹n› views'],
  ['12 people are viewing this', '‹n› people are viewing this'],
  ['3.4k likes and 17 comments', '‹n› likes and ‹n› comments'],
  ['Views: 98765', 'Views: ‹n›'],
  ['Viewed 1 234 times', 'Viewed ‹n› times'],
  ['Request 6f1c2a1e-3b4d-4c5e-9f00-112233445566', 'Request ‹token›'],
  ['build 3f9a2c1d', 'build ‹token›'],
  ['/static/app.js?v=20261202&cb=x81', '/static/app.js?v=‹token›&cb=‹token›'],
  ['session aB3dE5fG7hJ9kL1mN3pQ5rS7', 'session ‹token›'],
]

/** Text that means something and must read exactly as written. */
const MEANING = [
  'Price: $44.95', 'Only 3 left in stock', 'Version 2.3.10 released', 'Chapter 12 of 30', 'Order #123456',
  'You may also like', 'The sun is out on Main St', 'Ratio 16:9', 'Free shipping over €50.00', 'Size 10.5 US',
  'Reviews (4.5 of 5)', 'SKU ACE-1234', 'Call 555 0100',
]

t.test('every noise kind is replaced by its placeholder, nothing around it', async (t) => {
  for (const [line, quiet] of NOISE) t.equal(quietText(line, ALL_NOISE), quiet, line)
})

t.test('meaningful text is left as written', async (t) => {
  for (const line of MEANING) t.equal(quietText(line, ALL_NOISE), line, line)
})

t.test('a real change beside the noise still differs (a price next to a clock)', async (t) => {
  const before = quietText('Price $44.95 · updated 10:32 · 12 people viewing', ALL_NOISE)
  t.equal(quietText('Price $44.95 · updated 10:47 · 19 people viewing', ALL_NOISE), before, 'noise alone: same line')
  t.not(quietText('Price $39.95 · updated 10:47 · 19 people viewing', ALL_NOISE), before, 'the price: another line')
})

t.test('each step is switchable on its own', async (t) => {
  t.equal(quietText('Posted 5 minutes ago at 10:32', NO_NOISE), 'Posted 5 minutes ago at 10:32')
  t.equal(quietText('Posted 5 minutes ago at 10:32', { ...NO_NOISE, times: true }), 'Posted 5 minutes ago at ‹time›')
  t.equal(quietText('Posted 5 minutes ago at 10:32', { ...NO_NOISE, relative_times: true }), 'Posted ‹ago› at 10:32')
  t.equal(quietText('1,234 views on 2026-12-02', { ...ALL_NOISE, counters: false }), '1,234 views on ‹date›')
})

t.test('JSON: volatile fields by name keep their path, other values are read as text', async (t) => {
  const lines = [
    ['$.meta.requestId: "r-81723"', '$.meta.requestId: ‹token›'],
    ['$.meta.trace_id: "abc"', '$.meta.trace_id: ‹token›'],
    ['$.meta.took_ms: 12', '$.meta.took_ms: ‹n›'],
    ['$.meta.server_time: 1764690551', '$.meta.server_time: ‹time›'],
    ['$.items[2].views: 1234', '$.items[2].views: ‹n›'],
    ['$.items[2].view_count: 1234', '$.items[2].view_count: ‹n›'],
    ['$.updated: "2026-12-02T15:49:11Z"', '$.updated: "‹date›"'],
    ['$.items[0].price: 44.95', '$.items[0].price: 44.95'],
    ['$.items[0].reviews: 17', '$.items[0].reviews: 17'],
    ['$.items[0].stock: 3', '$.items[0].stock: 3'],
    ['$.meta.request_id: null', '$.meta.request_id: null'],
  ]
  for (const [line, quiet] of lines) t.equal(quietJsonLine(line!, ALL_NOISE), quiet, line)
  t.equal(quietJsonLine('$.meta.took_ms: 12', NO_NOISE), '$.meta.took_ms: 12', 'off: as written')
})

t.test('normalizeHtml and normalizeJson quieten only when asked (the detector passes the monitor\'s steps)', async (t) => {
  const page = '<html><body><p>Updated 10:32</p><p>Price $5</p></body></html>'
  t.same(normalizeHtml(page, { ignoreSelectors: [] }), { ok: true, lines: ['Updated 10:32', 'Price $5'] })
  t.same(normalizeHtml(page, { ignoreSelectors: [], noise: ALL_NOISE }), { ok: true, lines: ['Updated ‹time›', 'Price $5'] })
  t.same(normalizeJson('{"took_ms":5,"a":1}', ALL_NOISE), { ok: true, lines: ['$.a: 1', '$.took_ms: ‹n›'] })
})

t.test('text mode over a raw answer reads it by its content type', async (t) => {
  const options = { ignoreSelectors: [], noise: ALL_NOISE }
  t.same(normalizeBody('{"b":1,"a":2}', 'application/json; charset=utf-8', options), { ok: true, lines: ['$.a: 2', '$.b: 1'] }, 'JSON by its type')
  t.same(normalizeBody('{"a":2}', 'application/problem+json', options), { ok: true, lines: ['$.a: 2'] }, 'a +json type')
  t.same(normalizeBody(' [1]', 'text/plain', options), { ok: true, lines: ['$[0]: 1'] }, 'a body that parses as JSON, whatever its type')
  t.same(normalizeBody('{not json', 'text/plain', options), { ok: true, lines: ['{not json'] }, 'text that only looks like JSON is text')
  t.same(normalizeBody('line one\n\n  line   two at 10:32\n', 'text/plain', options), { ok: true, lines: ['line one', 'line two at ‹time›'] }, 'plain text, line by line')
  t.same(normalizeBody('<html><body><p>Hi</p></body></html>', 'text/html', options), { ok: true, lines: ['Hi'] }, 'markup as a page')
  t.same(normalizeBody('\u0000\u0001PNG\u0002', 'image/png', options), { ok: false, reason: 'no_text' }, 'binary: no text')
  t.same(normalizeBody('{"a":', 'application/json', options), { ok: false, reason: 'not_json' }, 'broken JSON said to be JSON')
})

t.test('JSON diffs match lines by path without indices: an array insertion shows as the item added', async (t) => {
  const before = ['$.items[0].id: 1', '$.items[1].id: 2', '$.total: 2']
  const after = ['$.items[0].id: 0', '$.items[1].id: 1', '$.items[2].id: 2', '$.total: 3']
  t.same(diffLines(before, after).lines, ['+$.items[0].id: 0', '-$.total: 2', '+$.total: 3'])
  t.same(diffLines(['$.a[0].x: 1', '$.a[1].y: 2'], ['$.a[0].x: 1', '$.a[0].y: 2']).lines, ['-$.a[1].y: 2', '+$.a[0].y: 2'],
    'lines equal but for their indices are still a change, never an empty diff')
  t.same(diffLines(['see note [1]'], ['see note [2]']).lines, ['-see note [1]', '+see note [2]'], 'text lines match as written')
})
