import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { chooseContract } from '../../domain/recipe/contracts.js'
import { DEFAULT_RECIPES_DIR, loadRecipeCatalogue } from '../../infra/recipes.js'
import { bodyOf, fixtureFor, fixturesOf, type FixtureResponse, type RecipeFixture } from '../helpers/recipe-fixtures.js'
import { startService } from '../helpers/service.js'

/**
 * Every shipped recipe on a browser engine (stealth: serp-search, marketplace-*) against its offline fixtures, run
 * like a customer's run: through the real service, its browser tier and the egress gateway, each site origin moved
 * by RECIPE_ORIGIN_OVERRIDES to a local server that answers from the current fixture (matched on the real URL).
 * test/unit/recipe-fixtures.test.ts runs the light recipes' fixtures without a browser.
 */
const catalogue = loadRecipeCatalogue(DEFAULT_RECIPES_DIR)
const browserRecipes = [...catalogue.values()].filter((recipe) => {
  const choice = chooseContract(recipe, undefined, new Date())
  return choice.ok && choice.contract.engine !== 'light'
})

let current: RecipeFixture | null = null
const served = new Set<FixtureResponse>()
const site = createServer((req, res) => {
  // /<host>/<path>?<query> is https://<host>/<path>?<query> on the real site.
  const local = new URL(req.url ?? '/', 'http://fixtures')
  const [, host, ...path] = local.pathname.split('/')
  const response = current && host ? fixtureFor(current, { method: req.method === 'POST' ? 'POST' : 'GET', url: `https://${host}/${path.join('/')}${local.search}` }) : undefined
  if (!response) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('no fixture')
  served.add(response)
  res.writeHead(response.status, { ...(response.json !== undefined ? { 'content-type': 'application/json' } : {}), ...response.headers }).end(bodyOf(response))
})
await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
const sitePort = (site.address() as AddressInfo).port
const hosts = [...new Set(browserRecipes.flatMap((recipe) => recipe.hosts))]

const svc = await startService({
  allowlist: [`127.0.0.1:${sitePort}`],
  env: {
    RECIPE_ORIGIN_OVERRIDES: JSON.stringify(Object.fromEntries(hosts.map((origin) => [origin, `http://127.0.0.1:${sitePort}/${new URL(origin).host}`]))),
    BROWSER_POOL_SIZE: '1',
  },
})
t.teardown(async () => { await svc.close(); await new Promise<void>((resolve) => site.close(() => resolve())) })
const org = await svc.createOrg('pro')

for (const recipe of browserRecipes) {
  t.test(recipe.slug, async (t) => {
    const fixtures = fixturesOf(recipe.slug)
    t.ok(fixtures.some((f) => f.expect.outcome === 'ok'), 'has an ok fixture')
    t.ok(fixtures.some((f) => f.expect.outcome === 'layout_changed'), 'has a changed-layout fixture')
    for (const fixture of fixtures) {
      current = fixture
      served.clear()
      const answer = await svc.api('POST', `/v1/recipes/${recipe.slug}/runs`, { key: org.key, body: { input: fixture.input } })
      t.equal(answer.status, 201, `${fixture.name}: run accepted`, { body: answer.body })
      const result = (await svc.waitForResult(org.key, answer.body.job_id, 120_000)).body
      t.equal(result.recipe?.outcome, fixture.expect.outcome, `${fixture.name}: outcome (${result.outcome_detail ?? 'no detail'})`)
      t.same(fixture.responses.filter((r) => !served.has(r)).map((r) => r.url), [], `${fixture.name}: the run asked for every fixture response`)
      if (fixture.expect.output !== undefined) t.strictSame(result.output, fixture.expect.output, `${fixture.name}: output`)
    }
  })
}
