import { Either } from 'effect'
import t from 'tap'
import { PLANS, type PlanName } from '../../domain/plans.js'
import { checkRunRequest } from '../../domain/recipe/run-request.js'
import type { Recipe } from '../../domain/recipe/types.js'
import { DEFAULT_RECIPES_DIR, loadRecipeCatalogue } from '../../infra/recipes.js'

// SPEC 2.10 and 8's recipe rules, decided by checkRunRequest (the recipe run command's decision): given the plan and
// a recipe, when a run is asked for, then the run it admits (its pages and reservation) or the tagged error.

const shipped = loadRecipeCatalogue(DEFAULT_RECIPES_DIR)
const issues = shipped.get('code-issues')!
const stealth = [...shipped.values()].find((r) => r.contracts.some((c) => c.engine === 'stealth'))!
const catalogue = new Map<string, Recipe>([[issues.slug, issues], [stealth.slug, stealth]])
const NOW = new Date('2026-05-01T12:00:00Z')
const input = (recipe: Recipe) => structuredClone(recipe.contracts[recipe.contracts.length - 1]!.example.input) as Record<string, unknown>
const when = (plan: PlanName, recipe: Recipe, extra: { max_pages?: number } = {}) => checkRunRequest(catalogue, recipe.slug, { input: input(recipe), ...extra }, PLANS[plan], NOW)

t.equal(issues.contracts[0]!.billing.unit, 'page', 'code-issues is billed per page')
for (const plan of ['free', 'starter'] as const) {
  const refused = when(plan, stealth)
  t.ok(Either.isLeft(refused) && refused.left._tag === 'Forbidden' && refused.left.code === 'recipe_not_in_plan', `${plan}: a stealth recipe is not in the plan (403)`)
}
for (const plan of ['pro', 'business', 'enterprise'] as const) t.ok(Either.isRight(when(plan, stealth)), `${plan}: a stealth recipe runs`)

// Max pages per run: Free 3, Starter 25, Pro 100, Business 250, Enterprise 500; a smaller max_pages is kept.
for (const [plan, cap] of [['free', 3], ['starter', 25], ['pro', 100], ['business', 250], ['enterprise', 500]] as const) {
  const admitted = when(plan, issues, { max_pages: 10_000 })
  t.ok(Either.isRight(admitted), `${plan}: a page-billed run`)
  if (Either.isRight(admitted)) {
    t.equal(admitted.right.block.max_pages, cap, `${plan}: max_pages capped at ${cap}`)
    t.equal(admitted.right.block.reserved_units, cap, `${plan}: reserves ${cap} pages`)
  }
  const untouched = when(plan, issues)
  if (Either.isRight(untouched)) t.equal(untouched.right.block.max_pages, cap, `${plan}: without max_pages, the plan's cap`)
}
const few = when('pro', issues, { max_pages: 2 })
t.ok(Either.isRight(few) && few.right.block.max_pages === 2, 'a max_pages under the cap is kept')
