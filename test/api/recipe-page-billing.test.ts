import t from 'tap'
import { DEFAULT_RECIPES_DIR, loadRecipeCatalogue } from '../../infra/recipes.js'
import { fixturesOf } from '../helpers/recipe-fixtures.js'
import { startRecipeSite } from '../helpers/recipe-site.js'
import { startService } from '../helpers/service.js'

/**
 * Per-unit billing of every page-billed recipe, through the real service against the local fixture site: each
 * fixture that sets `max_pages` is run with it, and the run must reserve max_pages × credits_per_unit at admission,
 * fetch exactly the fixture's pages and be charged pages × credits_per_unit, the rest released. One table over the
 * catalogue, so a new page-billed recipe is covered by adding its fixture.
 */
const catalogue = loadRecipeCatalogue(DEFAULT_RECIPES_DIR)
const paged = [...catalogue.values()].filter((recipe) => recipe.contracts.at(-1)!.billing.unit === 'page')
const BILLED = ['ok', 'ok_empty', 'not_found']

const site = await startRecipeSite([...new Set(paged.flatMap((recipe) => recipe.hosts))])
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`], env: { RECIPE_ORIGIN_OVERRIDES: site.overrides } })
t.teardown(async () => { await svc.close(); await site.close() })

t.test('every page-billed recipe has a fixture that bounds its pages', async (t) => {
  for (const recipe of paged) {
    t.ok(fixturesOf(recipe.slug).some((f) => f.max_pages !== undefined && f.expect.pages !== undefined && BILLED.includes(f.expect.outcome)), recipe.slug)
  }
})

for (const recipe of paged) {
  const contract = recipe.contracts.at(-1)!
  for (const fixture of fixturesOf(recipe.slug).filter((f) => f.max_pages !== undefined && f.expect.pages !== undefined)) {
    t.test(`${recipe.slug} ${fixture.name}: max_pages ${fixture.max_pages}`, async (t) => {
      const org = await svc.createOrg('pro')
      site.use(fixture)
      const answer = await svc.api('POST', `/v1/recipes/${recipe.slug}/runs`, { key: org.key, body: { input: fixture.input, max_pages: fixture.max_pages } })
      t.equal(answer.status, 201)
      const job = await svc.api('GET', `/v1/jobs/${answer.body.job_id}`, { key: org.key })
      t.equal(job.body.credit_weight, fixture.max_pages! * contract.credits_per_unit, 'reserved max_pages × credits_per_unit')
      const result = await svc.waitForResult(org.key, answer.body.job_id)
      t.equal(result.body.recipe.outcome, fixture.expect.outcome, result.body.outcome_detail ?? '')
      t.equal(result.body.pages_fetched, fixture.expect.pages, 'pages fetched')
      const charged = BILLED.includes(fixture.expect.outcome) ? fixture.expect.pages! * contract.credits_per_unit : 0
      t.equal(result.body.credits_charged, charged, `charged ${charged}`)
      const usage = (await svc.api('GET', '/v1/usage', { key: org.key })).body as { credits_used: number; credits_reserved: number }
      t.equal(usage.credits_used, charged, 'only the pages fetched are used')
      t.equal(usage.credits_reserved, 0, 'the rest of the reservation is released')
      if (fixture.expect.output !== undefined) t.strictSame(result.body.output, fixture.expect.output, 'output')
      t.same(site.unmatched, [], 'every request had a fixture')
    })
  }
}
