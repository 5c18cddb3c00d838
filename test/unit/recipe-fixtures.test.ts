import t from 'tap'
import { PLANS } from '../../domain/plans.js'
import { chooseContract } from '../../domain/recipe/contracts.js'
import { pagesAllowed } from '../../domain/recipe/pricing.js'
import { schemaProblems } from '../../domain/recipe/schemas.js'
import { runRecipe } from '../../fetchers/recipe/runtime.js'
import { DEFAULT_RECIPES_DIR, loadRecipeCatalogue } from '../../infra/recipes.js'
import { fixtureFetch, fixtureFor, fixturesOf } from '../helpers/recipe-fixtures.js'
import { closeCpuPool } from '../../fetchers/workers/index.js'

// The recipe runtime's page work runs in the CPU pool's workers.
t.teardown(closeCpuPool)

/**
 * Every shipped light recipe against its offline fixtures (the site's real response formats): outcome and output
 * exactly. Recipes on a browser engine are run by test/api/recipe-browser-fixtures.test.ts.
 */
const catalogue = loadRecipeCatalogue(DEFAULT_RECIPES_DIR)

t.ok(catalogue.size >= 1, `${catalogue.size} recipes loaded`)

for (const recipe of catalogue.values()) {
  t.test(recipe.slug, async (t) => {
    const fixtures = fixturesOf(recipe.slug)
    t.ok(fixtures.some((f) => f.expect.outcome === 'ok'), 'has an ok fixture')
    t.ok(fixtures.some((f) => f.expect.outcome === 'layout_changed'), 'has a changed-layout fixture')
    const choice = chooseContract(recipe, undefined, new Date())
    if (!choice.ok) return t.fail(choice.message)
    // Browser steps need a real browser: test/api/recipe-browser-fixtures.test.ts runs those recipes' fixtures.
    if (choice.contract.engine !== 'light') return
    for (const fixture of fixtures) {
      const input = structuredClone(fixture.input)
      t.same(schemaProblems(choice.contract.input_schema, input), [], `${fixture.name}: input fits the input schema`)
      const { fetch, unmatched, sent } = fixtureFetch(fixture)
      const result = await runRecipe({ recipe, contract: choice.contract, input, maxPages: pagesAllowed(fixture.max_pages, PLANS.pro.recipeMaxPages), fetch })
      t.equal(result.outcome, fixture.expect.outcome, `${fixture.name}: outcome (${result.detail ?? 'no detail'})`)
      t.same(unmatched, [], `${fixture.name}: every request has a fixture`)
      for (const request of sent) {
        const expected = fixtureFor(fixture, request)?.expect_json
        if (expected !== undefined) t.same(JSON.parse(request.body ?? 'null'), expected, `${fixture.name}: ${request.method} ${request.url} sends the expected body`)
        const form = fixtureFor(fixture, request)?.expect_form
        if (form !== undefined) t.strictSame(Object.fromEntries(new URLSearchParams(request.body ?? '')), form, `${fixture.name}: ${request.method} ${request.url} sends the expected form`)
      }
      if (fixture.expect.output !== undefined) t.strictSame(result.output, fixture.expect.output, `${fixture.name}: output`)
      if (fixture.expect.pages !== undefined) t.equal(result.pages, fixture.expect.pages, `${fixture.name}: pages fetched`)
      if (result.outcome === 'ok') t.same(schemaProblems(choice.contract.output_schema, result.output), [], `${fixture.name}: output fits the contract`)
    }
  })
}
