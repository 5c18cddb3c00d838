import t from 'tap'
import { MAX_SELECTOR_ALTERNATIVES, MAX_SELECTOR_COMBINATORS, selectorCost } from '../../domain/content-limits.js'
import {
  DEFAULT_MAX_RESULTS, TRANSFORMS, jsonPathForEngine, validateExtraction, type ExtractionHook,
} from '../../domain/extraction.js'

/** [field, code] of every error for `extraction = input`. */
const errorsOf = (input: unknown) => validateExtraction(input).errors.map((e) => [e.field, e.code])
/** Errors of a job with this one hook (plus a valid first hook, so indices are not always 0). */
const hookErrors = (hook: Record<string, unknown>) =>
  errorsOf({ hooks: [{ hook_id: 'ok', type: 'css', selector: 'h1' }, hook] })
const at = (field: string) => `extraction.hooks[1].${field}`

t.test('a valid spec gets defaults and no errors', async (t) => {
  const checked = validateExtraction({
    hooks: [
      { hook_id: 'title', type: 'css', selector: 'h1 > span:first-child', attribute: 'data-x' },
      { hook_id: 'xp', type: 'xpath', path: '//svg:use/@xlink:href | //a[contains(@class, "x")]', all_matches: true, max_results: 1000 },
      { hook_id: 're', type: 'regex', pattern: '(?<=Price: )(\\d+(?:[.,]\\d+)?) (\\w+)', group: 2 },
      { hook_id: 'jp', type: 'jsonpath', path: "$..offers[?(@.price < 10)]['@type']", max_results: 1 },
      { hook_id: 'rec', type: 'records', container: 'li', fields: { a: { selector: 'a', attribute: 'href', transform: ['url'], required: true, default: 'x' } } },
    ],
  })
  t.same(checked.errors, [])
  const hooks = checked.value!.hooks
  t.equal(hooks.length, 5)
  t.equal(hooks[0].max_results, DEFAULT_MAX_RESULTS)
  t.equal(hooks[0].all_matches, false)
  t.equal(hooks[2].group, 2)
  t.same(hooks[4].fields, { a: { selector: 'a', attribute: 'href', transform: ['url'], required: true, default: 'x' } })
  t.notOk('path' in hooks[0], 'fields that do not apply are not added')
})

t.test('invalid_extraction: not an object, or hooks not an array', async (t) => {
  t.same(errorsOf(null), [['extraction', 'invalid_extraction']])
  t.same(errorsOf([{ hook_id: 'a' }]), [['extraction', 'invalid_extraction']])
  t.same(errorsOf('hooks'), [['extraction', 'invalid_extraction']])
  t.same(errorsOf({}), [['extraction.hooks', 'invalid_extraction']])
  t.same(errorsOf({ hooks: { a: 1 } }), [['extraction.hooks', 'invalid_extraction']])
  t.same(errorsOf({ hooks: [] }), [], 'an empty list is allowed')
})

t.test('too_many_hooks: more than 25', async (t) => {
  const hooks = (n: number) => Array.from({ length: n }, (_, i) => ({ hook_id: `h${i}`, type: 'css', selector: 'p' }))
  t.same(errorsOf({ hooks: hooks(25) }), [])
  t.same(errorsOf({ hooks: hooks(26) }), [['extraction.hooks', 'too_many_hooks']])
})

t.test('invalid_hook: a hook that is not an object', async (t) => {
  t.same(errorsOf({ hooks: ['css', null, [1]] }), [
    ['extraction.hooks[0]', 'invalid_hook'], ['extraction.hooks[1]', 'invalid_hook'], ['extraction.hooks[2]', 'invalid_hook'],
  ])
})

t.test('missing_hook_id and duplicate_hook_id', async (t) => {
  t.same(hookErrors({ type: 'css', selector: 'p' }), [[at('hook_id'), 'missing_hook_id']])
  t.same(hookErrors({ hook_id: '  ', type: 'css', selector: 'p' }), [[at('hook_id'), 'missing_hook_id']])
  t.same(hookErrors({ hook_id: 7, type: 'css', selector: 'p' }), [[at('hook_id'), 'missing_hook_id']])
  t.same(hookErrors({ hook_id: 'ok', type: 'css', selector: 'p' }), [[at('hook_id'), 'duplicate_hook_id']])
})

t.test('invalid_hook_type', async (t) => {
  t.same(hookErrors({ hook_id: 'a', type: 'jquery', selector: 'p' }), [[at('type'), 'invalid_hook_type']])
  t.same(hookErrors({ hook_id: 'a' }), [[at('type'), 'invalid_hook_type']])
  t.same(hookErrors({ hook_id: 'a', type: 'CSS', selector: 'p' }), [[at('type'), 'invalid_hook_type']])
})

t.test('css: missing_selector, invalid_selector, invalid_attribute', async (t) => {
  t.same(hookErrors({ hook_id: 'a', type: 'css' }), [[at('selector'), 'missing_selector']])
  t.same(hookErrors({ hook_id: 'a', type: 'css', selector: '' }), [[at('selector'), 'missing_selector']])
  for (const selector of ['div >', 'p ~', '>', 'a,', 'a[href', '##x', 'p:no-such-pseudo', 'p::before', 'a:has(', 42]) {
    t.same(hookErrors({ hook_id: 'a', type: 'css', selector }), [[at('selector'), 'invalid_selector']], `rejects ${String(selector)}`)
  }
  for (const selector of ['div > p.x', 'a[href^="http"]', 'li:nth-child(2n+1)', 'tr:has(td.price)', 'p:contains("x")', 'li:first', '*', 'a[title$=">"]']) {
    t.same(hookErrors({ hook_id: 'a', type: 'css', selector }), [], `accepts ${selector}`)
  }
  for (const attribute of ['', 'a b', 'x"', 5, 'a=b']) {
    t.same(hookErrors({ hook_id: 'a', type: 'css', selector: 'a', attribute }), [[at('attribute'), 'invalid_attribute']], `rejects attribute ${JSON.stringify(attribute)}`)
  }
  t.same(hookErrors({ hook_id: 'a', type: 'css', selector: 'a', attribute: 'data-price:usd' }), [])
})

t.test('xpath and jsonpath: missing_path, invalid_xpath, invalid_path', async (t) => {
  t.same(hookErrors({ hook_id: 'a', type: 'xpath' }), [[at('path'), 'missing_path']])
  t.same(hookErrors({ hook_id: 'a', type: 'jsonpath', path: '' }), [[at('path'), 'missing_path']])
  for (const path of ['//a[', '//a[@href', '1 +', 'foo()', '//a[bogus-fn(.)]', '//a[@x = $var]', '///', 7]) {
    t.same(hookErrors({ hook_id: 'a', type: 'xpath', path }), [[at('path'), 'invalid_xpath']], `rejects xpath ${String(path)}`)
  }
  for (const path of ['count(//tr)', '//dc:creator', "normalize-space(//p[@id='x']/text()[1])", '(//li)[last()]']) {
    t.same(hookErrors({ hook_id: 'a', type: 'xpath', path }), [], `accepts xpath ${path}`)
  }
  for (const path of ['$.a[', '$.a]', 'a.b', '$[?(@.price <<< 1)]', '$[?(@.x ==)]', "$['a", '$[?(nope())]', 5]) {
    t.same(hookErrors({ hook_id: 'a', type: 'jsonpath', path }), [[at('path'), 'invalid_path']], `rejects jsonpath ${String(path)}`)
  }
  for (const path of ['$..price', '$.data[?(@.stock.warehouse > 0)].name', "$[*]['@type']", '$.a[-1:]', '$..*']) {
    t.same(hookErrors({ hook_id: 'a', type: 'jsonpath', path }), [], `accepts jsonpath ${path}`)
  }
})

t.test('regex: missing_pattern, invalid_pattern (bad syntax), regex_unsupported (RE2 cannot run it), invalid_group', async (t) => {
  t.same(hookErrors({ hook_id: 'a', type: 'regex' }), [[at('pattern'), 'missing_pattern']])
  for (const pattern of ['(unclosed', '[z-a]', '*x']) {
    t.same(hookErrors({ hook_id: 'a', type: 'regex', pattern }), [[at('pattern'), 'invalid_pattern']], `rejects ${pattern}`)
  }
  // Valid JavaScript that RE2 cannot run: backreferences, lookahead.
  for (const pattern of ['(a*)\\1*$', '(\\w)\\1', 'a(?=b)', 'a(?!b)', '(?<q>["\'])x\\k<q>']) {
    t.same(hookErrors({ hook_id: 'a', type: 'regex', pattern }), [[at('pattern'), 'regex_unsupported']], `rejects ${pattern}`)
  }
  // Catastrophic for a backtracking engine, linear with RE2: accepted. Common patterns too (lookbehind, named groups).
  for (const pattern of ['(a+)+$', '(x+x+)+y', '(\\w+\\s?)*$', '(.*a){12}', '([a-z]+)*@', '(a|a)*$', '(?:a|a?)+$',
    '(\\d+(?:[.,]\\d+)?) €', '(?:\\d{3}-)*\\d{4}', '(?<=\\$)\\d+', '(?<year>\\d{4})-(\\d{2})', '^\\s*(\\w+):']) {
    t.same(hookErrors({ hook_id: 'a', type: 'regex', pattern }), [], `accepts ${pattern}`)
  }
  t.same(hookErrors({ hook_id: 'a', type: 'regex', pattern: '(a)(b)', group: 3 }), [[at('group'), 'invalid_group']])
  t.same(hookErrors({ hook_id: 'a', type: 'regex', pattern: '(a)(b)', group: -1 }), [[at('group'), 'invalid_group']])
  t.same(hookErrors({ hook_id: 'a', type: 'regex', pattern: '(a)(b)', group: 1.5 }), [[at('group'), 'invalid_group']])
  t.same(hookErrors({ hook_id: 'a', type: 'regex', pattern: 'ab', group: '0' }), [[at('group'), 'invalid_group']])
  t.same(hookErrors({ hook_id: 'a', type: 'regex', pattern: '(a)(?:b)(?<c>c)', group: 2 }), [])
  t.same(hookErrors({ hook_id: 'a', type: 'regex', pattern: '(a)(?:b)(?<c>c)|(d)', group: 3 }), [])
  t.same(hookErrors({ hook_id: 'a', type: 'regex', pattern: '(a)(?:b)(?<c>c)|(d)', group: 4 }), [[at('group'), 'invalid_group']])
})

t.test('invalid_max_results and invalid_all_matches', async (t) => {
  for (const max_results of [0, 1001, 2.5, '10', -1, null]) {
    t.same(hookErrors({ hook_id: 'a', type: 'css', selector: 'p', max_results }), [[at('max_results'), 'invalid_max_results']], `rejects ${JSON.stringify(max_results)}`)
  }
  t.same(hookErrors({ hook_id: 'a', type: 'css', selector: 'p', max_results: 1 }), [])
  t.same(hookErrors({ hook_id: 'a', type: 'css', selector: 'p', max_results: 1000 }), [])
  t.same(hookErrors({ hook_id: 'a', type: 'css', selector: 'p', all_matches: 'yes' }), [[at('all_matches'), 'invalid_all_matches']])
  t.same(hookErrors({ hook_id: 'a', type: 'css', selector: 'p', all_matches: 1 }), [[at('all_matches'), 'invalid_all_matches']])
})

t.test('records: missing_container, invalid_selector on container, missing_fields, field errors', async (t) => {
  const fields = { name: { selector: '.name' } }
  t.same(hookErrors({ hook_id: 'a', type: 'records', fields }), [[at('container'), 'missing_container']])
  t.same(hookErrors({ hook_id: 'a', type: 'records', container: 'li >', fields }), [[at('container'), 'invalid_selector']])
  for (const bad of [undefined, {}, [], 'name']) {
    t.same(hookErrors({ hook_id: 'a', type: 'records', container: 'li', fields: bad }), [[at('fields'), 'missing_fields']], `rejects fields ${JSON.stringify(bad)}`)
  }
  const fieldErrors = (field: unknown) => hookErrors({ hook_id: 'a', type: 'records', container: 'li', fields: { f: field } })
  t.same(fieldErrors('.name'), [[at('fields.f'), 'invalid_field_selector']])
  t.same(fieldErrors({}), [[at('fields.f.selector'), 'invalid_field_selector']])
  t.same(fieldErrors({ selector: 'a[' }), [[at('fields.f.selector'), 'invalid_field_selector']])
  t.same(fieldErrors({ selector: 'a', attribute: 'a b' }), [[at('fields.f.attribute'), 'invalid_attribute']])
  t.same(fieldErrors({ selector: 'a', transform: ['number', 'rot13'] }), [[at('fields.f.transform'), 'invalid_transform']])
  t.same(fieldErrors({ selector: 'a', transform: 'number' }), [[at('fields.f.transform'), 'invalid_transform']])
  t.same(fieldErrors({ selector: 'a', required: 'yes' }), [[at('fields.f.required'), 'invalid_required']])
  t.same(fieldErrors({ selector: ':scope', transform: [...TRANSFORMS], required: false, default: null }), [])
  t.same(fieldErrors({ selector: 'a', transform: Array(40).fill('trim') }), [[at('fields.f.transform'), 'invalid_transform']])
  const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, { selector: 'a' }]))
  t.same(hookErrors({ hook_id: 'a', type: 'records', container: 'li', fields: many }), [[at('fields'), 'too_many_fields']])
})

t.test('every error is collected, not only the first', async (t) => {
  const errors = errorsOf({
    hooks: [
      { hook_id: 'a', type: 'css', max_results: 0, all_matches: 'x' },
      { hook_id: 'a', type: 'regex', pattern: '(a+)\\1', group: 9 },
      'nope',
      { hook_id: 'c', type: 'records', container: 'li', fields: { x: { selector: '', transform: ['bogus'], required: 1 } } },
    ],
  })
  t.same(errors, [
    ['extraction.hooks[0].max_results', 'invalid_max_results'],
    ['extraction.hooks[0].all_matches', 'invalid_all_matches'],
    ['extraction.hooks[0].selector', 'missing_selector'],
    ['extraction.hooks[1].hook_id', 'duplicate_hook_id'],
    ['extraction.hooks[1].pattern', 'regex_unsupported'],
    ['extraction.hooks[2]', 'invalid_hook'],
    ['extraction.hooks[3].fields.x.selector', 'invalid_field_selector'],
    ['extraction.hooks[3].fields.x.transform', 'invalid_transform'],
    ['extraction.hooks[3].fields.x.required', 'invalid_required'],
  ])
  t.equal(validateExtraction({ hooks: [{ hook_id: 'a', type: 'css' }] }).value, undefined, 'no value when invalid')
  for (const e of validateExtraction({ hooks: [{ type: 'x' }] }).errors) t.type(e.message, 'string')
})

t.test('validated hooks are plain JSON (they are stored in events)', async (t) => {
  const hooks = validateExtraction({ hooks: [{ hook_id: 'a', type: 'regex', pattern: 'x' }] }).value!.hooks as ExtractionHook[]
  t.same(JSON.parse(JSON.stringify(hooks)), hooks)
  t.same(hooks[0], { hook_id: 'a', type: 'regex', all_matches: false, max_results: 50, pattern: 'x', group: 0 })
})

t.test('JSON-LD keys starting with @ are escaped for jsonpath-plus, scripts are not', async (t) => {
  t.equal(jsonPathForEngine("$[*]['@type']"), "$[*]['`@type']")
  t.equal(jsonPathForEngine('$..@graph[*].name'), '$..`@graph[*].name')
  t.equal(jsonPathForEngine('$[?(@["@type"] === "X")].name'), '$[?(@["@type"] === "X")].name')
  t.equal(jsonPathForEngine('$..*@number()'), '$..*@number()')
})

t.test('selector_too_complex: nested :has(), too many combinators or alternatives, in css, records and field selectors', async (t) => {
  const deepHas = 'div:has(p:has(span))'
  const chain = Array.from({ length: MAX_SELECTOR_COMBINATORS + 2 }, () => 'div').join(' ')
  const list = Array.from({ length: MAX_SELECTOR_ALTERNATIVES + 1 }, (_, i) => `.c${i}`).join(', ')
  for (const selector of [deepHas, chain, list, `a > b + c ~ d ${chain.slice(4)}`]) {
    t.same(hookErrors({ hook_id: 'a', type: 'css', selector }), [[at('selector'), 'selector_too_complex']], `refuses ${selector.slice(0, 40)}`)
  }
  t.same(hookErrors({ hook_id: 'a', type: 'records', container: deepHas, fields: { x: { selector: 'b' } } }), [[at('container'), 'selector_too_complex']])
  t.same(hookErrors({ hook_id: 'a', type: 'records', container: 'li', fields: { x: { selector: chain } } }), [[at('fields.x.selector'), 'selector_too_complex']])
  // Accepted: the hostile selector of issue 31 is within the caps (its cost is bounded by the worker's deadline),
  // formula arguments and quoted text are not combinators, one :has level is fine.
  for (const selector of ['div div div div div div:has(div div div div)', 'li:nth-child(2n+1) > a', 'a[title="x > y + z ~ w"]', 'ul:has(> li.a, + p)']) {
    t.same(hookErrors({ hook_id: 'a', type: 'css', selector }), [], `accepts ${selector}`)
  }
  t.same(selectorCost('div div div div div div:has(div div div div)'), { combinators: 8, hasNesting: 1, alternatives: 1 })
  t.same(selectorCost('a , b>c ~ d:not(.x .y)'), { combinators: 3, hasNesting: 0, alternatives: 2 })
})
