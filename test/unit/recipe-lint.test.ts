import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { lintRecipe, type LintProblem } from '../../domain/recipe/lint.js'
import { DEFAULT_RECIPES_DIR, lintFile, recipeFiles } from '../../infra/recipes.js'

/**
 * The recipe linter rule by rule: a small valid recipe that uses every kind of light step, then for each rule one
 * change that breaks only that rule, with the pointer and message the linter must give. Then every shipped recipe,
 * and `cli recipes lint` itself (its output and exit code).
 */
const valid = () => ({
  slug: 'test-lint',
  title: 'Lint fixture',
  category: 'Testing',
  status: 'beta',
  hosts: ['https://api.example.com', 'https://www.example.com'],
  contracts: [{
    contract: 1,
    engine: 'light',
    multiplier: 1,
    credits_per_unit: 1,
    billing: { unit: 'run' },
    input_schema: {
      type: 'object', additionalProperties: false, required: ['name'],
      properties: { name: { type: 'string', minLength: 1, pattern: '^[a-z0-9-]+$' }, kind: { enum: ['a', 'b'], default: 'a' } },
    },
    output_schema: {
      type: 'object', additionalProperties: false, required: ['title', 'tags'],
      properties: { title: { type: 'string' }, size: { type: ['integer', 'null'] }, tags: { type: 'array', items: { type: 'object' } } },
    },
    example: { input: { name: 'thing' }, output: { title: 'Thing', size: 3, tags: [{ name: 'x' }] } },
    implementation: {
      impl: 1,
      steps: [
        { request: { as: 'main', url: 'https://api.example.com/things/{input.name}', query: { kind: '{input.kind}' }, headers: { accept: 'application/json' }, bind: { id: { locators: [{ jsonpath: '$.id' }] } } } },
        { paginate: { as: 'tags', url: 'https://api.example.com/things/{vars.id}/tags', query: { page: '{page}' }, start: 1, items: [{ jsonpath: '$[*]' }], page_size: 50 } },
        { request: { as: 'search', method: 'POST', url: 'https://api.example.com/search', json: { id: '{vars.id}' } } },
        { follow: { page: 'main', as: 'page', locators: [{ jsonpath: '$.html_url' }] } },
        { request: { as: 'extra', optional: true, url: 'https://www.example.com/things/{input.name}' } },
      ],
      assertions: [
        { outcome: 'not_found', step: 'main', status: [404] },
        { outcome: 'ok_empty', step: 'tags', status: [200], select: [{ jsonpath: '$' }], equals: [] },
        { outcome: 'blocked', contains: 'Access denied' },
      ],
      extract: {
        title: { locators: [{ jsonpath: '$.title' }, { jsonpath: '$.name' }], transform: ['trim'] },
        heading: { page: 'page', locators: [{ css: 'h1' }, { xpath: '//title' }], required: false },
        size: { page: 'extra', locators: [{ jsonpath: '$.size' }], transform: ['integer'], required: false },
        tags: { page: 'tags', each: [{ jsonpath: '$[*]' }], fields: { name: { locators: [{ jsonpath: '$.name' }] } } },
      },
      output: { title: '$extract.title', size: '$extract.size', tags: '$extract.tags' },
    },
  }],
})
type Doc = ReturnType<typeof valid>
/** A fresh copy of the valid recipe, as JSON would give it. */
const base = (): Doc => JSON.parse(JSON.stringify(valid())) as Doc
const steps = (d: Doc) => d.contracts[0]!.implementation.steps as any[]
const impl = (d: Doc) => d.contracts[0]!.implementation as any
const C = '/contracts/0'
const S = `${C}/implementation/steps`

t.same(lintRecipe(base()), [], 'the base recipe is valid, so each case below fails only by its change')

const problemAt = (problems: readonly LintProblem[], pointer: string, message: RegExp) =>
  problems.some((p) => p.pointer === pointer && message.test(p.message))

const cases: { name: string; change: (d: Doc) => void; pointer: string; message: RegExp; others?: boolean }[] = [
  // The meta-schema: closed, with fixed step, locator, transform and outcome kinds.
  { name: 'an unknown key', change: (d: any) => { d.script = 'alert(1)' }, pointer: '/script', message: /must NOT have additional properties/ },
  { name: 'a slug that is not a slug', change: (d) => { d.slug = 'Not A Slug' }, pointer: '/slug', message: /must match pattern/ },
  { name: 'a host that is not a bare origin', change: (d) => { d.hosts[0] = 'https://api.example.com/path' }, pointer: '/hosts/0', message: /must match pattern/ },
  { name: 'a required contract field missing', change: (d: any) => { delete d.contracts[0].example }, pointer: `${C}/example`, message: /must have required property 'example'/ },
  { name: 'an unknown step kind', change: (d) => { steps(d).push({ script: { code: 'fetch()' } }) }, pointer: `${S}/5`, message: /must match exactly one schema in oneOf/ },
  { name: 'a locator of two kinds at once', change: (d) => { impl(d).extract.title.locators[0] = { jsonpath: '$.a', css: 'a' } }, pointer: `${C}/implementation/extract/title`, message: /must match exactly one schema in oneOf/ },
  { name: 'a transform outside the closed list', change: (d) => { impl(d).extract.title.transform = ['eval'] }, pointer: `${C}/implementation/extract/title/transform/0`, message: /must be equal to one of the allowed values/ },
  { name: 'an assertion deciding ok', change: (d) => { impl(d).assertions[0].outcome = 'ok' }, pointer: `${C}/implementation/assertions/0/outcome`, message: /must be equal to one of the allowed values/ },
  { name: 'an assertion with no condition', change: (d) => { impl(d).assertions[0] = { outcome: 'blocked' } }, pointer: `${C}/implementation/assertions/0`, message: /must match a schema in anyOf/ },
  { name: 'table notes over two lines (they would break the README table row)', change: (d: any) => { d.notes = 'first\nsecond' }, pointer: '/notes', message: /must match pattern/ },
  { name: 'a list position named like one of its fields', change: (d: any) => { impl(d).extract.tags.position = 'name' }, pointer: `${C}/implementation/extract/tags/position`, message: /^name is already a field of this list$/ },
  { name: 'an unknown engine', change: (d: any) => { d.contracts[0].engine = 'quantum' }, pointer: `${C}/engine`, message: /must be equal to one of the allowed values/ },
  // What the meta-schema cannot say.
  { name: 'a contract number published twice', change: (d) => { d.contracts.push(structuredClone(d.contracts[0]!)) }, pointer: '/contracts/1/contract', message: /^contract 1 is published twice$/ },
  { name: 'a price that is not engine weight × multiplier', change: (d) => { d.contracts[0]!.multiplier = 2.5 }, pointer: `${C}/credits_per_unit`, message: /^must be 3 \(engine weight × multiplier, rounded up\)$/ },
  { name: 'an input schema that does not compile', change: (d: any) => { d.contracts[0].input_schema.properties.kind = { type: 'nonsense' } }, pointer: `${C}/input_schema`, message: /^does not compile: / },
  { name: 'a catastrophic pattern in the input schema', change: (d) => { d.contracts[0]!.input_schema.properties.name.pattern = '^([a-z0-9-]+)+$' }, pointer: `${C}/input_schema/properties/name/pattern`, message: /backtrack catastrophically/ },
  { name: 'a pattern that does not compile, in the output schema', change: (d: any) => { d.contracts[0].output_schema.properties.title.pattern = '([' }, pointer: `${C}/output_schema/properties/title/pattern`, message: /^pattern does not compile: /, others: true },
  { name: 'an example input that does not fit', change: (d: any) => { d.contracts[0].example.input = { name: 'UPPER' } }, pointer: `${C}/example/input/name`, message: /must match pattern/ },
  { name: 'an example output that does not fit', change: (d: any) => { d.contracts[0].example.output.title = 42 }, pointer: `${C}/example/output/title`, message: /must be string/ },
  { name: 'a CSS locator that does not parse', change: (d) => { impl(d).extract.heading.locators[0] = { css: 'h1[' } }, pointer: `${C}/implementation/extract/heading/locators/0`, message: /^locator does not parse: / },
  { name: 'an XPath locator that does not parse', change: (d) => { impl(d).extract.heading.locators[1] = { xpath: '//title[' } }, pointer: `${C}/implementation/extract/heading/locators/1`, message: /^locator does not parse: XPath does not parse/ },
  { name: 'a JSONPath binding that does not parse', change: (d) => { steps(d)[0].request.bind.id.locators[0] = { jsonpath: '$.id[' } }, pointer: `${S}/0/request/bind/id/locators/0`, message: /^locator does not parse: missing "\]"/ },
  { name: 'a JSONPath that does not start at the root', change: (d) => { steps(d)[1].paginate.items[0] = { jsonpath: 'items[*]' } }, pointer: `${S}/1/paginate/items/0`, message: /JSONPath must start with \$/ },
  { name: 'a last page before the first', change: (d) => { steps(d)[1].paginate.last_page = 0 }, pointer: `${S}/1/paginate/last_page`, message: /^the last page \(0\) comes before the first \(1\)$/ },
  { name: 'a lookup from a field the input does not have', change: (d: any) => { impl(d).lookups = { kind_word: { from: 'sort', map: { a: 'A', b: 'B' } } } }, pointer: `${C}/implementation/lookups/kind_word/from`, message: /^sort is not a field of the input schema$/ },
  { name: 'a lookup missing a value of the input enum', change: (d: any) => { impl(d).lookups = { kind_word: { from: 'kind', map: { a: 'A' } } } }, pointer: `${C}/implementation/lookups/kind_word/map`, message: /^the input value "b" has no entry$/ },
  { name: 'a follow locator that does not parse', change: (d) => { steps(d)[3].follow.locators[0] = { css: 'a >' } }, pointer: `${S}/3/follow/locators/0`, message: /ends with a combinator/ },
  { name: 'an assertion locator that does not parse', change: (d) => { impl(d).assertions[1].select[0] = { jsonpath: '$[' } }, pointer: `${C}/implementation/assertions/1/select/0`, message: /^locator does not parse/ },
  { name: 'a list item locator that does not parse', change: (d) => { impl(d).extract.tags.each[0] = { xpath: '//(' } }, pointer: `${C}/implementation/extract/tags/each/0`, message: /^locator does not parse/ },
  { name: 'a list field locator that does not parse', change: (d) => { impl(d).extract.tags.fields.name.locators[0] = { jsonpath: '$.name)' } }, pointer: `${C}/implementation/extract/tags/fields/name/locators/0`, message: /^locator does not parse: unbalanced/ },
  { name: 'a URL whose host is templated', change: (d) => { steps(d)[0].request.url = 'https://{input.name}.example.com/things' }, pointer: `${S}/0/request/url`, message: /must start with a literal http\(s\) origin/ },
  { name: 'a URL whose host is templated, even when a probe value would name a declared host', change: (d) => { d.hosts.push('https://x.example.com'); steps(d)[0].request.url = 'https://{input.name}.example.com/things' }, pointer: `${S}/0/request/url`, message: /must start with a literal http\(s\) origin/ },
  { name: 'a URL whose path does not start after the origin', change: (d) => { steps(d)[0].request.url = 'https://api.example.com{input.name}' }, pointer: `${S}/0/request/url`, message: /must start with a literal http\(s\) origin/ },
  { name: 'a URL on a host the recipe does not declare', change: (d) => { steps(d)[0].request.url = 'https://evil.example.net/things/{input.name}' }, pointer: `${S}/0/request/url`, message: /is not on one of the recipe's hosts/ },
  { name: 'a navigate URL on an undeclared host (browser engine)', change: (d: any) => { d.contracts[0].engine = 'standard'; d.contracts[0].credits_per_unit = 5; impl(d).steps = [{ navigate: { url: 'https://evil.example.net/' } }]; impl(d).extract = {}; impl(d).assertions = [] }, pointer: `${S}/0/navigate/url`, message: /is not on one of the recipe's hosts/ },
  { name: 'an input placeholder the input schema lacks (path)', change: (d) => { steps(d)[0].request.url = 'https://api.example.com/things/{input.nope}' }, pointer: `${S}/0/request/url`, message: /^\{input\.nope\} is not a field of the input schema$/ },
  { name: 'an input placeholder the input schema lacks (query)', change: (d) => { steps(d)[0].request.query.kind = '{input.sort}' }, pointer: `${S}/0/request/query/kind`, message: /^\{input\.sort\} is not a field of the input schema$/ },
  { name: 'an input placeholder the input schema lacks (form)', change: (d) => { steps(d)[2].request.json = undefined; steps(d)[2].request.form = { q: '{input.query}' } }, pointer: `${S}/2/request/form/q`, message: /^\{input\.query\} is not a field of the input schema$/ },
  { name: 'a variable no earlier step binds (JSON body)', change: (d) => { steps(d)[2].request.json = { id: '{vars.later}' } }, pointer: `${S}/2/request/json`, message: /^\{vars\.later\} is not bound by an earlier step$/ },
  { name: 'a placeholder in a header', change: (d) => { steps(d)[0].request.headers['x-token'] = '{input.name}' }, pointer: `${S}/0/request/headers/x-token`, message: /^headers take no placeholders/ },
  { name: 'a placeholder in a follow header', change: (d) => { steps(d)[3].follow.headers = { referer: '{vars.id}' } }, pointer: `${S}/3/follow/headers/referer`, message: /^headers take no placeholders/ },
  { name: 'following a page no earlier step names', change: (d) => { steps(d)[3].follow.page = 'nowhere' }, pointer: `${S}/3/follow/page`, message: /^no earlier step is named nowhere$/ },
  { name: 'an embedded-JSON path that does not parse', change: (d) => { impl(d).extract.title.locators[0] = { json: { after: ")]}'", jsonpath: '$[0' } } }, pointer: `${C}/implementation/extract/title/locators/0/json/jsonpath`, message: /^locator does not parse: / },
  { name: 'a nested embedded-JSON path that does not parse', change: (d) => { impl(d).extract.heading.locators[0] = { css: 'script', json: { after: 'data:', before: '});', jsonpath: '$[0][2]', json: { jsonpath: '$[(' } } } }, pointer: `${C}/implementation/extract/heading/locators/0/json/json/jsonpath`, message: /^locator does not parse: / },
  { name: 'embedded JSON cut between one marker twice', change: (d) => { impl(d).extract.title.locators[0] = { jsonpath: '$.raw', json: { after: '|', before: '|', jsonpath: '$' } } }, pointer: `${C}/implementation/extract/title/locators/0/json/before`, message: /after and before are the same marker/ },
  { name: 'embedded JSON on an XPath locator', change: (d) => { impl(d).extract.heading.locators[1] = { xpath: '//script', json: { jsonpath: '$' } } }, pointer: `${C}/implementation/extract/heading/locators/1/json`, message: /must NOT have additional properties/ },
  { name: 'a where path that does not parse', change: (d) => { impl(d).extract.title.locators[0] = { jsonpath: '$.items[*]', where: { jsonpath: '$.lang[', equals: '{input.kind}' } } }, pointer: `${C}/implementation/extract/title/locators/0/where/jsonpath`, message: /^locator does not parse: / },
  { name: 'a where then-path that does not parse', change: (d) => { impl(d).extract.title.locators[0] = { jsonpath: '$.items[*]', where: { jsonpath: '$.lang', equals: '{input.kind}', then: '$.url)' } } }, pointer: `${C}/implementation/extract/title/locators/0/where/then`, message: /^locator does not parse: / },
  { name: 'a where on element text (a css locator without json)', change: (d) => { impl(d).extract.heading.locators[0] = { css: 'h1', where: { jsonpath: '$', equals: 'x' } } }, pointer: `${C}/implementation/extract/heading/locators/0/where`, message: /^locator does not parse: where compares JSON values/ },
  { name: 'a where comparing with an input the schema lacks', change: (d) => { impl(d).extract.title.locators[0] = { jsonpath: '$.items[*]', where: { jsonpath: '$.lang', equals: '{input.language}' } } }, pointer: `${C}/implementation/extract/title/locators/0/where/equals`, message: /^\{input\.language\} is not a field of the input schema$/ },
  { name: 'a follow query with a variable no earlier step binds', change: (d) => { steps(d)[3].follow.query = { tlang: '{vars.later}' } }, pointer: `${S}/3/follow/query/tlang`, message: /^\{vars\.later\} is not bound by an earlier step$/ },
  { name: 'join without all', change: (d) => { impl(d).extract.title.join = ' ' }, pointer: `${C}/implementation/extract/title/join`, message: /^join joins the matches of all: true$/ },
  { name: 'a lookup template with a variable', change: (d) => { impl(d).lookups = { token: { from: 'name', present: '"{vars.id}"', absent: 'null' } } }, pointer: `${C}/implementation/lookups/token/present`, message: /^\{vars\.id\}: a lookup's template takes only fields of the input schema$/ },
  { name: 'a lookup with both map and present', change: (d) => { impl(d).lookups = { token: { from: 'kind', map: { a: '1', b: '2' }, present: '{input.kind}' } } }, pointer: `${C}/implementation/lookups/token`, message: /must match exactly one schema in oneOf/ },
  { name: 'a browser step on the light engine', change: (d) => { steps(d).push({ click: { locators: [{ css: 'button' }] } }) }, pointer: `${S}/5`, message: /^click is a browser step; this contract runs on the light engine$/ },
  { name: 'a light step on a browser engine', change: (d: any) => { d.contracts[0].engine = 'standard'; d.contracts[0].credits_per_unit = 5 }, pointer: `${S}/0`, message: /^request is a light step; this contract runs on a browser engine$/, others: true },
  { name: 'an assertion on a step that does not exist', change: (d) => { impl(d).assertions[0].step = 'nowhere' }, pointer: `${C}/implementation/assertions/0/step`, message: /^no step is named nowhere$/ },
  { name: 'an extractor on a page that does not exist', change: (d) => { impl(d).extract.heading.page = 'nowhere' }, pointer: `${C}/implementation/extract/heading/page`, message: /^no step is named nowhere$/ },
  { name: 'an optional step that binds', change: (d) => { steps(d)[4].request.bind = { size: { locators: [{ jsonpath: '$.size' }] } } }, pointer: `${S}/4/request/bind`, message: /^an optional step binds nothing/ },
  { name: 'an optional first step', change: (d) => { steps(d)[0].request.optional = true; delete steps(d)[0].request.bind; steps(d).splice(1, 3) }, pointer: `${S}/0/request/optional`, message: /^the first step cannot be optional/, others: true },
  // A host placeholder: only for an input whose schema is an enum of the recipe's hosts.
  { name: 'a host placeholder whose input is not an enum', change: (d) => { steps(d)[0].request.url = 'https://{input.name}/things' }, pointer: `${S}/0/request/url`, message: /^\{input\.name\} gives the host, so the input schema must make name an enum of the recipe's hosts$/ },
  { name: 'a host placeholder whose enum names an undeclared host', change: (d: any) => { d.contracts[0].input_schema.properties.kind = { enum: ['api.example.com', 'evil.example.net'], default: 'api.example.com' }; steps(d)[0].request.url = 'https://{input.kind}/things' }, pointer: `${S}/0/request/url`, message: /is not on one of the recipe's hosts \(for kind "evil\.example\.net"\)$/ },
  { name: 'a host placeholder whose enum holds something that is not a host', change: (d: any) => { d.contracts[0].input_schema.properties.kind = { enum: ['api.example.com', 'api.example.com/x'], default: 'api.example.com' }; steps(d)[0].request.url = 'https://{input.kind}/things' }, pointer: `${S}/0/request/url`, message: /\{input\.kind\} is not a host name \(for kind "api\.example\.com\/x"\)$/ },
  // Cursor pagination: {cursor} only in a paginate step that declares where its cursor is, as a whole value.
  { name: '{cursor} in a paginate step without a cursor', change: (d) => { steps(d)[1].paginate.query.after = '{cursor}' }, pointer: `${S}/1/paginate/query/after`, message: /^\{cursor\} is only known in a paginate step that declares a cursor$/ },
  { name: '{cursor} in a request step', change: (d) => { steps(d)[2].request.json = { id: '{vars.id}', after: '{cursor}' } }, pointer: `${S}/2/request/json`, message: /^\{cursor\} is only known in a paginate step that declares a cursor$/ },
  { name: '{cursor} as part of a query value', change: (d) => { steps(d)[1].paginate.cursor = [{ jsonpath: '$.next' }]; steps(d)[1].paginate.query.after = 'id:{cursor}' }, pointer: `${S}/1/paginate/query/after`, message: /^\{cursor\} must be the whole query value/ },
  { name: '{cursor} in a URL path', change: (d) => { steps(d)[1].paginate.cursor = [{ jsonpath: '$.next' }]; steps(d)[1].paginate.url = 'https://api.example.com/things/{vars.id}/tags/{cursor}' }, pointer: `${S}/1/paginate/url`, message: /^\{cursor\} goes only in a query, JSON or form value of its own/ },
  { name: 'a cursor locator that does not parse', change: (d) => { steps(d)[1].paginate.cursor = [{ jsonpath: '$.next[' }] }, pointer: `${S}/1/paginate/cursor/0`, message: /^locator does not parse/ },
  // Derived variables: a safe pattern with a capture group over an input field.
  { name: 'a derived variable from an input the schema lacks', change: (d) => { impl(d).derive = { part: { input: 'url', pattern: '^(.+)$' } } }, pointer: `${C}/implementation/derive/part/input`, message: /^url is not a field of the input schema$/ },
  { name: 'a derived variable whose pattern has no capture group', change: (d) => { impl(d).derive = { part: { input: 'name', pattern: '^[a-z]+' } } }, pointer: `${C}/implementation/derive/part/pattern`, message: /^the pattern has no capture group/ },
  { name: 'a derived variable with a catastrophic pattern', change: (d) => { impl(d).derive = { part: { input: 'name', pattern: '^(([a-z])+)+$' } } }, pointer: `${C}/implementation/derive/part/pattern`, message: /backtrack catastrophically/ },
]

t.test('a host from an enum of declared hosts, a cursor pagination and a derived variable pass the linter', async (t) => {
  const document: any = base()
  document.contracts[0].input_schema.properties.kind = { enum: ['api.example.com', 'www.example.com'], default: 'api.example.com' }
  steps(document)[0].request.url = 'https://{input.kind}/things/{input.name}'
  steps(document)[1].paginate = { as: 'tags', url: 'https://api.example.com/things/{vars.id}/tags', query: { after: '{cursor}', n: '{vars.part}' }, cursor: [{ jsonpath: '$.next' }], items: [{ jsonpath: '$.items[*]' }], page_size: 50 }
  impl(document).derive = { part: { input: 'name', pattern: '^([a-z]+)' } }
  t.same(lintRecipe(document), [])
})

for (const c of cases) {
  t.test(c.name, async (t) => {
    const document = base()
    c.change(document)
    const problems = lintRecipe(JSON.parse(JSON.stringify(document)))
    t.ok(problemAt(problems, c.pointer, c.message), `${c.pointer} ${c.message}`, { problems })
    // One change breaks one rule, except in the meta-schema (ajv reports every failing branch) and where a case says
    // the change also breaks others (a browser engine makes every light step wrong).
    if (!c.message.source.startsWith('must ') && !c.others) t.equal(problems.length, 1, 'exactly one problem', { problems })
  })
}

t.test('a document that fails the meta-schema gets no further checks (they assume its shape)', async (t) => {
  const document: any = base()
  document.contracts[0].credits_per_unit = 99
  document.contracts[0].unknown = true
  const problems = lintRecipe(document)
  t.ok(problemAt(problems, `${C}/unknown`, /must NOT have additional properties/))
  t.notOk(problems.some((p) => p.pointer === `${C}/credits_per_unit`), 'the price rule did not run')
})

t.test('every shipped recipe passes the linter', async (t) => {
  const files = recipeFiles(DEFAULT_RECIPES_DIR)
  t.ok(files.length >= 8, `${files.length} recipes`)
  for (const file of files) t.same(lintFile(file).problems, [], file)
})

t.test('cli recipes lint: a line per problem, exit code 1; ok lines and exit code 0 for the shipped recipes', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'recipe-lint-'))
  const bad = base()
  bad.contracts[0]!.multiplier = 2.5
  writeFileSync(join(dir, 'bad.json'), JSON.stringify(bad))
  writeFileSync(join(dir, 'broken.json'), '{ not json')
  const cli = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'infra/cli.ts', 'recipes', 'lint', ...args], { encoding: 'utf8', cwd: join(DEFAULT_RECIPES_DIR, '..') })
  const failing = cli([join(dir, 'bad.json'), join(dir, 'broken.json')])
  t.equal(failing.status, 1)
  t.match(failing.stdout, `${join(dir, 'bad.json')}: /contracts/0/credits_per_unit must be 3 (engine weight × multiplier, rounded up)\n`)
  t.match(failing.stdout, new RegExp(`${join(dir, 'broken.json')}: / not JSON: `))
  const shipped = cli([])
  t.equal(shipped.status, 0, shipped.stdout + shipped.stderr)
  t.equal(shipped.stdout.trim().split('\n').filter((line) => line.startsWith('ok ')).length, recipeFiles(DEFAULT_RECIPES_DIR).length, 'one ok line per shipped recipe')
})
