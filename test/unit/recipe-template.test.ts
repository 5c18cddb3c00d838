import t from 'tap'
import { renderForm, renderJson, renderUrl } from '../../domain/recipe/template.js'
import { runRecipe, type RecipeHttpRequest } from '../../fetchers/recipe/runtime.js'
import { DEFAULT_RECIPES_DIR, loadRecipeCatalogue } from '../../infra/recipes.js'
import { fixturesOf } from '../helpers/recipe-fixtures.js'
import { closeCpuPool } from '../../fetchers/workers/index.js'

// The recipe runtime's page work runs in the CPU pool's workers.
t.teardown(closeCpuPool)

/**
 * The template engine puts input values only into URL paths and queries (encoded), JSON bodies and form values.
 * Fuzzed with selector-like, script-like and URL-like values: the host never changes, a path value stays one
 * segment, and the locators and scripts of a recipe are never touched by input.
 */
const HOSTS = ['https://api.example.org']
const NASTY = [
  '..', '.', '../../admin', '..%2F..%2Fadmin', '/etc/passwd', '@evil.example', 'evil.example', '//evil.example/x', 'https://evil.example/',
  '?admin=1', '#frag', '&x=1', 'a b', '\u0000', '\r\nHost: evil', '%00', '{input.owner}', '{page}', '$..*', "' or 1=1 --",
  'div > a[href^="javascript:"]', '//a[@href]', '$.store.book[?(@.price < 10)]', '<script>alert(1)</script>', 'javascript:alert(1)',
  '${process.exit()}', '`rm -rf /`', '}{', '\\', ':80', 'user:pass@evil.example', '\u202e', '🙂',
]
const random = (seed: number) => () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff }
const rnd = random(42)
const ALPHABET = '/\\?#&=@:.%{}[]$*<>"\'` \t\r\n;()!~^|,+-_aZ09é\u0000\u2028'
const fuzzValues = [...NASTY, ...Array.from({ length: 300 }, () => Array.from({ length: 1 + Math.floor(rnd() * 20) }, () => ALPHABET[Math.floor(rnd() * ALPHABET.length)]).join(''))]

t.test('URL templates: the origin is the template\'s, a path value is one encoded segment, a query value one parameter', async (t) => {
  for (const value of fuzzValues) {
    const url = renderUrl('https://api.example.org/repos/{input.owner}/x', { q: '{input.owner}', fixed: 'yes' }, { input: { owner: value }, vars: {} }, HOSTS)
    if (value === '.' || value === '..') { if (url.ok) t.fail(`a dot segment was rendered for ${JSON.stringify(value)}`); continue }
    if (!url.ok) { t.fail(`rendering failed for ${JSON.stringify(value)}: ${url.error}`); continue }
    const parsed = new URL(url.value)
    if (parsed.origin !== 'https://api.example.org') t.fail(`origin changed for ${JSON.stringify(value)}: ${url.value}`)
    const segments = parsed.pathname.split('/')
    if (segments.length !== 4 || segments[1] !== 'repos' || segments[3] !== 'x') t.fail(`path changed for ${JSON.stringify(value)}: ${parsed.pathname}`)
    if (decodeURIComponent(segments[2]!) !== value) t.fail(`path value not preserved for ${JSON.stringify(value)}`)
    if (parsed.searchParams.get('q') !== value || parsed.searchParams.get('fixed') !== 'yes' || [...parsed.searchParams.keys()].length !== 2) {
      t.fail(`query changed for ${JSON.stringify(value)}: ${parsed.search}`)
    }
    if (parsed.username || parsed.password || parsed.hash) t.fail(`credentials or fragment appeared for ${JSON.stringify(value)}`)
  }
  t.pass(`${fuzzValues.length} values`)
})

t.test('a value never makes a `.` or `..` path segment (input or a value taken from a site): refused, the request is not moved (issue 32)', async (t) => {
  const render = (input: Record<string, unknown>, vars: Record<string, unknown> = {}, template = 'https://api.example.org/page/{input.title}/summary') =>
    renderUrl(template, { redirect: 'true' }, { input, vars }, HOSTS)
  for (const value of ['..', '.']) {
    const refused = render({ title: value })
    t.notOk(refused.ok, `input ${JSON.stringify(value)} is refused`)
    t.match(refused, { error: /path segment/ })
    t.notOk(render({}, { next: value }, 'https://api.example.org/page/{vars.next}/summary').ok, `a site's value ${JSON.stringify(value)} is refused`)
  }
  t.notOk(render({ a: '.', b: '.' }, {}, 'https://api.example.org/page/{input.a}{input.b}/x').ok, 'two values making one `..` segment')
  t.notOk(render({ a: '.' }, {}, 'https://api.example.org/page/.{input.a}/x').ok, 'a value completing a literal dot')
  for (const value of ['...', 'a..', '..a', '%2e%2e', '.%2e', ' ..']) {
    const url = render({ title: value })
    t.ok(url.ok && new URL(url.value).pathname.split('/').length === 4, `${JSON.stringify(value)} stays one segment`)
  }
  t.equal(renderUrl('https://api.example.org/a/../b', undefined, { input: {}, vars: {} }, HOSTS).ok, true, 'the recipe\'s own literal path is its business')
})

t.test('hosts are literal or declared: a placeholder inside the host, before the path, or a host not in the recipe, is refused', async (t) => {
  t.notOk(renderUrl('https://{input.host}/x', undefined, { input: { host: 'evil.example' }, vars: {} }, HOSTS).ok)
  t.notOk(renderUrl('https://api.example.org{input.port}/x', undefined, { input: { port: '.evil.example' }, vars: {} }, HOSTS).ok)
  t.notOk(renderUrl('{input.url}', undefined, { input: { url: 'https://api.example.org/' }, vars: {} }, HOSTS).ok)
  t.notOk(renderUrl('https://other.example/x', undefined, { input: {}, vars: {} }, HOSTS).ok)
})

t.test('JSON bodies and form values carry the value as data', async (t) => {
  for (const value of fuzzValues) {
    const json = renderJson({ package: { name: '{input.name}', ecosystem: 'npm' }, text: 'v={input.name}' }, { input: { name: value }, vars: {} })
    if (!json.ok) { t.fail(json.error); continue }
    const body = JSON.parse(JSON.stringify(json.value)) as { package: { name: string; ecosystem: string }; text: string }
    if (body.package.name !== value || body.package.ecosystem !== 'npm' || body.text !== `v=${value}` || Object.keys(body).length !== 2) t.fail(`JSON body changed for ${JSON.stringify(value)}`)
    const form = renderForm({ q: '{input.name}', fixed: 'yes' }, { input: { name: value }, vars: {} })
    if (!form.ok) { t.fail(form.error); continue }
    const params = new URLSearchParams(form.value)
    if (params.get('q') !== value || params.get('fixed') !== 'yes' || [...params.keys()].length !== 2) t.fail(`form changed for ${JSON.stringify(value)}`)
  }
  t.pass(`${fuzzValues.length} values`)
})

t.test('running every shipped recipe with hostile input never reaches another host nor changes a locator', async (t) => {
  const catalogue = loadRecipeCatalogue(DEFAULT_RECIPES_DIR)
  for (const recipe of catalogue.values()) {
    const contract = recipe.contracts.at(-1)!
    const before = JSON.stringify(contract.implementation)
    const fields = Object.keys(fixturesOf(recipe.slug)[0]?.input ?? contract.example.input)
    for (const value of NASTY) {
      const sent: RecipeHttpRequest[] = []
      const input = { ...contract.example.input, ...Object.fromEntries(fields.filter((f) => typeof contract.example.input[f] === 'string').map((f) => [f, value])) }
      await runRecipe({ recipe, contract, input, maxPages: 2, fetch: async (request) => { sent.push(request); return { ok: true, response: { status: 404, headers: {}, body: '{}', url: request.url } } } })
      for (const request of sent) {
        if (!recipe.hosts.includes(new URL(request.url).origin)) t.fail(`${recipe.slug}: ${JSON.stringify(value)} sent a request to ${request.url}`)
        for (const header of Object.values(request.headers)) if (header.includes(value) && value.length > 2) t.fail(`${recipe.slug}: input reached a header`)
      }
    }
    t.equal(JSON.stringify(contract.implementation), before, `${recipe.slug}: steps, locators and assertions unchanged`)
  }
})

t.test('a host placeholder gives only a declared host: any other value, hostile or not, is refused', async (t) => {
  const hosts = ['https://mastodon.social', 'https://fosstodon.org']
  const render = (server: unknown) => renderUrl('https://{input.server}/api/v1/timelines/tag/{input.tag}', { limit: '40' }, { input: { server, tag: 'rust' }, vars: {} }, hosts)
  t.same(render('fosstodon.org'), { ok: true, value: 'https://fosstodon.org/api/v1/timelines/tag/rust?limit=40' })
  for (const value of [...fuzzValues, 'evil.example', 'mastodon.social.evil.example', 'mastodon.social:444', 'mastodon.social@evil.example', 'MASTODON.SOCIAL', 42, null, ['mastodon.social']]) {
    const url = render(value)
    if (url.ok) t.fail(`host value ${JSON.stringify(value)} was accepted: ${url.value}`)
  }
  t.pass('every other value refused')
})

