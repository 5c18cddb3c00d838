import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { schemaProblems } from '../../domain/recipe/schemas.js'
import { DEFAULT_RECIPES_DIR, recipeFiles } from '../../infra/recipes.js'
import { fixturesOf } from '../helpers/recipe-fixtures.js'
import { startRecipeSite } from '../helpers/recipe-site.js'
import { startService } from '../helpers/service.js'

/**
 * Recipe runs through the real service: the shipped recipes plus test variants (disabled, sunset, stealth,
 * unreachable, costly) in a recipes folder of their own, every site request answered by the local fixture site
 * through RECIPE_ORIGIN_OVERRIDES and the egress gateway.
 */
const dir = mkdtempSync(join(tmpdir(), 'recipes-'))
for (const file of recipeFiles(DEFAULT_RECIPES_DIR)) cpSync(file, join(dir, file.split('/').pop()!))
const codeRepo = JSON.parse(readFileSync(join(DEFAULT_RECIPES_DIR, 'code-repo.json'), 'utf8'))
const variant = (slug: string, change: (recipe: any) => void) => {
  const recipe = structuredClone(codeRepo)
  recipe.slug = slug
  change(recipe)
  writeFileSync(join(dir, `${slug}.json`), JSON.stringify(recipe))
}
variant('test-disabled', (r) => { r.disabled = true })
variant('test-sunset', (r) => {
  const second = structuredClone(r.contracts[0])
  second.contract = 2
  second.implementation.impl = 3
  r.contracts[0].sunset_at = '2020-01-01T00:00:00Z'
  r.contracts.push(second)
})
variant('test-stealth', (r) => {
  const c = r.contracts[0]
  c.engine = 'stealth'; c.credits_per_unit = 30
  c.implementation.steps = [{ navigate: { url: 'https://api.github.com/repos/{input.owner}/{input.repo}' } }]
})
variant('test-unreachable', (r) => {
  r.hosts = ['https://unreachable.example.test']
  r.contracts[0].implementation.steps[0].request.url = 'https://unreachable.example.test/repos/{input.owner}/{input.repo}'
})
variant('test-costly', (r) => { r.contracts[0].multiplier = 1000; r.contracts[0].credits_per_unit = 1000 })

const site = await startRecipeSite(['https://api.github.com'])
const svc = await startService({
  allowlist: [`127.0.0.1:${site.port}`],
  env: { RECIPES_DIR: dir, RECIPE_ORIGIN_OVERRIDES: site.overrides },
  dns: { 'unreachable.example.test': ['10.0.0.1'] },
})
t.teardown(async () => { await svc.close(); await site.close() })
const pro = await svc.createOrg('pro')
const fixture = (slug: string, name: string) => fixturesOf(slug).find((f) => f.name === name)!

const run = (key: string, slug: string, body: unknown) => svc.api('POST', `/v1/recipes/${slug}/runs`, { key, body })
const usage = async (key: string) => (await svc.api('GET', '/v1/usage', { key })).body as { credits_used: number; credits_reserved: number }

t.test('listing and detail', async (t) => {
  const list = await svc.api('GET', '/v1/recipes', { key: pro.key })
  t.equal(list.status, 200)
  const repo = list.body.items.find((r: any) => r.slug === 'code-repo')
  t.match(repo, { category: 'Code hosting', status: 'beta', health: { state: 'no_data' }, contract: 1, engine: 'light', credits_per_unit: 1, billing_unit: 'run' })
  t.ok(list.body.items.some((r: any) => r.slug === 'test-stealth'), 'a Pro account sees stealth recipes')
  const free = await svc.createOrg('free')
  const freeList = await svc.api('GET', '/v1/recipes', { key: free.key })
  t.notOk(freeList.body.items.some((r: any) => r.slug === 'test-stealth'), 'a Free account does not')
  const detail = await svc.api('GET', '/v1/recipes/code-issues', { key: pro.key })
  t.equal(detail.status, 200)
  t.match(detail.body.contracts[0], { contract: 1, impl: 1, engine: 'light', credits_per_unit: 1, billing_unit: 'page (100 issues)', sunset_at: null })
  t.ok(detail.body.contracts[0].input_schema.properties.owner, 'input schema')
  t.ok(detail.body.contracts[0].example.output.issues, 'example output')
  const missing = await svc.api('GET', '/v1/recipes/no-such-recipe', { key: pro.key })
  t.equal(missing.status, 404)
  t.equal(missing.body.error.code, 'recipe_not_found')
})

/** SPEC 2.10's catalogue, the six news publishers as six slugs. */
const SPEC_SLUGS = [
  'serp-search', 'serp-autocomplete', 'video-search', 'video-detail', 'video-subtitles', 'video-channel-feed',
  'marketplace-search', 'marketplace-product', 'appstore-app', 'appstore-search', 'appstore-reviews', 'playstore-app',
  'playstore-search', 'playstore-reviews', 'chromium-store-extension', 'edge-store-addon', 'firefox-store-addon',
  'firefox-store-addon-search', 'firefox-store-addon-reviews', 'social-a-posts', 'social-a-profile', 'social-a-thread',
  'social-b-hashtag', 'social-b-trends', 'social-c-community', 'messenger-channel', 'forum-search', 'code-issues',
  'code-repo', 'code-search-repos', 'code-releases', 'js-package', 'py-package', 'qa-search',
  'news-headlines-a', 'news-headlines-b', 'news-headlines-c', 'news-headlines-d', 'news-headlines-e', 'news-headlines-f',
  'reference-summary',
]
const STEALTH_SLUGS = ['serp-search', 'marketplace-search', 'marketplace-product']

t.test('the whole SPEC 2.10 catalogue is listed, with health, engine and an example that fits its contract', async (t) => {
  const list = await svc.api('GET', '/v1/recipes', { key: pro.key })
  const shipped = list.body.items.filter((r: any) => !r.slug.startsWith('test-'))
  t.same(shipped.map((r: any) => r.slug).sort(), [...SPEC_SLUGS].sort(), 'exactly the slugs of SPEC 2.10')
  for (const recipe of shipped) {
    t.equal(recipe.health.state, 'no_data', `${recipe.slug}: health before any test run`)
    t.equal(recipe.engine, STEALTH_SLUGS.includes(recipe.slug) ? 'stealth' : 'light', `${recipe.slug}: engine`)
    const detail = await svc.api('GET', `/v1/recipes/${recipe.slug}`, { key: pro.key })
    t.ok(detail.body.contracts.length >= 1, `${recipe.slug}: at least one contract`)
    for (const contract of detail.body.contracts) {
      t.same(schemaProblems(contract.output_schema, contract.example.output), [], `${recipe.slug} contract ${contract.contract}: example output fits`)
    }
  }
})

t.test('scopes: recipes.read lists, recipes.run runs', async (t) => {
  const readOnly = await svc.createOrg('pro', ['recipes.read', 'jobs.read'])
  t.equal((await svc.api('GET', '/v1/recipes', { key: readOnly.key })).status, 200)
  const denied = await run(readOnly.key, 'code-repo', { input: { owner: 'octocat', repo: 'Hello-World' } })
  t.equal(denied.status, 403)
  t.equal(denied.body.error.code, 'missing_scope')
  const runOnly = await svc.createOrg('pro', ['recipes.run'])
  const listDenied = await svc.api('GET', '/v1/recipes', { key: runOnly.key })
  t.equal(listDenied.status, 403)
})

t.test('an ok run: 201, then the result with recipe, captured_at and output; one credit', async (t) => {
  const org = await svc.createOrg('pro')
  site.use(fixture('code-repo', 'ok'))
  const answer = await run(org.key, 'code-repo', { input: { owner: 'octocat', repo: 'Hello-World' } })
  t.equal(answer.status, 201)
  t.same(answer.body, { job_id: answer.body.job_id, status: 'queued', recipe: { slug: 'code-repo', contract: 1, impl: 1 } })
  const result = await svc.waitForResult(org.key, answer.body.job_id)
  t.equal(result.status, 200)
  t.equal(result.body.status, 'succeeded')
  t.same(result.body.recipe, { slug: 'code-repo', contract: 1, impl: 1, outcome: 'ok' })
  t.same(result.body.output, fixture('code-repo', 'ok').expect.output)
  t.equal(result.body.captured_at, result.body.finished_at)
  t.equal(result.body.credits_charged, 1)
  t.equal(result.body.matched_locators.stars, 0, 'the first locator of the chain matched')
  t.same(site.unmatched, [])
  const job = await svc.api('GET', `/v1/jobs/${answer.body.job_id}`, { key: org.key })
  t.same(job.body.tags, [], 'the service writes nothing into the customer\'s tags: the origin records the recipe')
  const byTag = await svc.api('GET', '/v1/jobs?tag=recipe%3Acode-repo', { key: org.key })
  t.equal(byTag.body.total, 0, 'no job is found by a recipe tag')
  const used = await usage(org.key)
  t.equal(used.credits_used, 1)
  t.equal(used.credits_reserved, 0)
})

t.test('billed and unbilled outcomes', async (t) => {
  const org = await svc.createOrg('pro')
  const cases = [['not_found', 'succeeded', 1], ['rate_limited', 'failed', 0], ['blocked', 'failed', 0], ['layout_changed', 'failed', 0], ['upstream_error', 'failed', 0]] as const
  let expected = 0
  for (const [name, status, credits] of cases) {
    const f = fixture('code-repo', name)
    site.use(f)
    const answer = await run(org.key, 'code-repo', { input: f.input })
    t.equal(answer.status, 201)
    const result = await svc.waitForResult(org.key, answer.body.job_id)
    t.equal(result.body.status, status, `${name}: job ${status}`)
    t.equal(result.body.recipe.outcome, name)
    t.equal(result.body.output, null, `${name}: no output`)
    t.equal(result.body.credits_charged, credits, `${name}: ${credits} credits`)
    if (status === 'failed') t.equal(result.body.failure_reason, name)
    expected += credits
  }
  t.equal((await usage(org.key)).credits_used, expected, 'only billed outcomes cost credits')
})

t.test('page billing: reserve max_pages (capped by the plan), charge pages fetched, release the rest', async (t) => {
  const org = await svc.createOrg('free')
  const f = fixture('code-issues', 'ok')
  site.use(f)
  const answer = await run(org.key, 'code-issues', { input: f.input, max_pages: 50 })
  t.equal(answer.status, 201)
  const job = await svc.api('GET', `/v1/jobs/${answer.body.job_id}`, { key: org.key })
  t.equal(job.body.credit_weight, 3, 'the free plan caps max_pages at 3, reserved at 1 credit each')
  const result = await svc.waitForResult(org.key, answer.body.job_id)
  t.equal(result.body.recipe.outcome, 'ok')
  t.equal(result.body.pages_fetched, 2)
  t.equal(result.body.credits_charged, 2)
  t.equal(result.body.output.issues.length, 140)
  const used = await usage(org.key)
  t.equal(used.credits_used, 2, 'charged the two pages fetched')
  t.equal(used.credits_reserved, 0, 'the third page is released')
})

t.test('idempotency tokens return the original run', async (t) => {
  const org = await svc.createOrg('pro')
  site.use(fixture('code-repo', 'ok'))
  const body = { input: { owner: 'octocat', repo: 'Hello-World' }, idempotency_token: 'run-once' }
  const first = await run(org.key, 'code-repo', body)
  const second = await run(org.key, 'code-repo', body)
  t.equal(first.status, 201)
  t.equal(second.status, 200)
  t.equal(second.headers.get('idempotent-replayed'), 'true')
  t.equal(second.body.job_id, first.body.job_id)
  t.same(second.body.recipe, { slug: 'code-repo', contract: 1, impl: 1 })
  await svc.waitForResult(org.key, first.body.job_id)
  t.equal((await usage(org.key)).credits_used, 1, 'one run, one charge')
})

t.test('contract pinning and sunset', async (t) => {
  const org = await svc.createOrg('pro')
  site.use(fixture('code-repo', 'ok'))
  const input = { owner: 'octocat', repo: 'Hello-World' }
  const newest = await run(org.key, 'test-sunset', { input })
  t.equal(newest.status, 201)
  t.same(newest.body.recipe, { slug: 'test-sunset', contract: 2, impl: 3 }, 'without contract the newest runs')
  const pinned = await run(org.key, 'test-sunset', { input, contract: 2 })
  t.same(pinned.body.recipe, { slug: 'test-sunset', contract: 2, impl: 3 })
  const sunset = await run(org.key, 'test-sunset', { input, contract: 1 })
  t.equal(sunset.status, 410)
  t.equal(sunset.body.error.code, 'recipe_contract_sunset')
  const unknown = await run(org.key, 'test-sunset', { input, contract: 9 })
  t.equal(unknown.status, 404)
  t.equal(unknown.body.error.code, 'recipe_not_found')
  await svc.waitForResult(org.key, newest.body.job_id)
  await svc.waitForResult(org.key, pinned.body.job_id)
})

t.test('every error of SPEC 7.2', async (t) => {
  const org = await svc.createOrg('pro')
  const input = { owner: 'octocat', repo: 'Hello-World' }
  const expectError = async (answer: Awaited<ReturnType<typeof run>>, status: number, code: string) => {
    t.equal(answer.status, status, `${code}: ${status}`)
    t.equal(answer.body.error?.code, code)
    return answer
  }
  await expectError(await run(org.key, 'code-repo', { owner: 'octocat' }), 400, 'invalid_payload')
  await expectError(await run(org.key, 'code-repo', { input: ['octocat'] }), 400, 'invalid_payload')
  await expectError(await run(org.key, 'code-repo', { input, extra: 1 }), 400, 'invalid_payload')
  await expectError(await run(org.key, 'no-such-recipe', { input }), 404, 'recipe_not_found')
  const free = await svc.createOrg('free')
  await expectError(await run(free.key, 'test-stealth', { input }), 403, 'recipe_not_in_plan')
  await expectError(await run(org.key, 'test-disabled', { input }), 409, 'recipe_disabled')
  const invalid = await expectError(await run(org.key, 'code-repo', { input: { owner: 'octo/cat', extra: true } }), 422, 'invalid_recipe_input')
  t.same(invalid.body.error.details.map((d: any) => d.field).sort(), ['input.extra', 'input.owner', 'input.repo'], 'details list every failing field')
  await expectError(await run(org.key, 'code-repo', { input, max_pages: 2 }), 422, 'invalid_max_pages')
  await expectError(await run(org.key, 'code-repo', { input, contract: 0 }), 422, 'invalid_contract')
  await expectError(await run(org.key, 'test-unreachable', { input }), 503, 'recipe_unavailable')
  // 1000 credits a run: the first fits the Free plan's 1000, the second is over.
  const poor = await svc.createOrg('free')
  site.use(fixture('code-repo', 'not_found'))
  const costly = await run(poor.key, 'test-costly', { input: { owner: 'octocat', repo: 'no-such-repository' } })
  t.equal(costly.status, 201)
  const over = await expectError(await run(poor.key, 'test-costly', { input }), 429, 'plan_limit_monthly_credits')
  t.ok(over.headers.get('retry-after'), 'Retry-After on 429')
  const notReady = await svc.api('GET', `/v1/jobs/${costly.body.job_id}/result`, { key: poor.key })
  if (notReady.status === 409) t.equal(notReady.body.error.code, 'result_not_ready')
  const done = await svc.waitForResult(poor.key, costly.body.job_id)
  t.equal(done.body.recipe.outcome, 'not_found')
  t.equal((await usage(poor.key)).credits_used, 1000)
})
