import t from 'tap'
import { fixturesOf } from '../helpers/recipe-fixtures.js'
import { startRecipeSite } from '../helpers/recipe-site.js'
import { startService } from '../helpers/service.js'

/**
 * The recipes that read several sites in one run (js-package, py-package) and code-search-repos, through the real
 * service: every origin, the registries' stand-in origins included, is served by the local fixture site through
 * RECIPE_ORIGIN_OVERRIDES and the egress gateway. This shows the overrides per origin, the POST body of the OSV query
 * on the engine, and an optional step refused by its site leaving the run ok and billed.
 */
const site = await startRecipeSite(['https://api.deps.dev', 'https://api.osv.dev', 'https://npm-registry.invalid', 'https://python-index.invalid', 'https://api.github.com'])
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`], env: { RECIPE_ORIGIN_OVERRIDES: site.overrides } })
t.teardown(async () => { await svc.close(); await site.close() })

const cases = [
  ['js-package', 'ok'], ['js-package', 'ok_registry_refused'], ['js-package', 'not_found'],
  ['py-package', 'ok'], ['py-package', 'ok_index_rate_limited'], ['py-package', 'blocked'],
  ['code-search-repos', 'ok'], ['code-search-repos', 'ok_empty'], ['code-search-repos', 'rate_limited_secondary'],
] as const

for (const [slug, name] of cases) {
  t.test(`${slug} ${name}`, async (t) => {
    const fixture = fixturesOf(slug).find((f) => f.name === name)!
    const org = await svc.createOrg('pro')
    site.use(fixture)
    site.received.length = 0
    const answer = await svc.api('POST', `/v1/recipes/${slug}/runs`, { key: org.key, body: { input: fixture.input } })
    t.equal(answer.status, 201)
    const result = await svc.waitForResult(org.key, answer.body.job_id)
    const { outcome } = fixture.expect
    const billed = ['ok', 'ok_empty', 'not_found'].includes(outcome)
    t.same(result.body.recipe, { slug, contract: slug === 'js-package' ? 2 : 1, impl: 1, outcome }, result.body.outcome_detail ?? '')
    t.equal(result.body.status, billed ? 'succeeded' : 'failed')
    t.equal(result.body.credits_charged, billed ? 1 : 0)
    if (fixture.expect.output !== undefined) t.strictSame(result.body.output, fixture.expect.output, 'output')
    if (fixture.expect.pages !== undefined) t.equal(result.body.pages_fetched, fixture.expect.pages, 'pages fetched')
    t.same(site.unmatched, [], 'every request had a fixture')
    for (const response of fixture.responses.filter((r) => r.expect_json !== undefined)) {
      const sent = site.received.find((r) => r.method === 'POST' && r.url === response.url)
      t.ok(sent, `${response.url} was posted`)
      if (sent) t.same(JSON.parse(sent.body), response.expect_json, 'the OSV query body')
    }
  })
}
