import { Effect, Either } from 'effect'
import { submitJob } from '../commands/jobs.js'
import type { OriginOverrides, RecipeCatalogue } from '../domain/recipe/catalogue.js'
import type { Allowlist } from '../domain/address-policy.js'
import { newestContract } from '../domain/recipe/contracts.js'
import { HEALTH_ORG_ID, testRunToken, testSlot } from '../domain/recipe/health.js'
import { recipeJobSpec } from '../domain/recipe/job-spec.js'
import type { RecipeRunSpec } from '../domain/recipe/run-spec.js'
import { schemaProblems } from '../domain/recipe/schemas.js'
import type { Recipe } from '../domain/recipe/types.js'
import { Clock } from '../ports/clock.js'

export interface RecipeHealthOptions {
  readonly catalogue: RecipeCatalogue
  readonly overrides: OriginOverrides
  readonly allowlist: Allowlist
  readonly intervalMs: number
  readonly log: (message: string, detail?: unknown) => void
}

/**
 * One test run of a recipe's newest contract on its example input, for one scheduled slot. The job id derives from
 * (recipe, slot), so a restart or a second process submitting the same slot makes no second run. Test runs are
 * never billed (unit price 0) and are recorded under the service's own organization.
 */
export const submitTestRun = (recipe: Recipe, slot: Date, options: RecipeHealthOptions) =>
  Effect.gen(function* () {
    const contract = newestContract(recipe)
    const input = structuredClone(contract.example.input) as Record<string, unknown>
    schemaProblems(contract.input_schema, input) // fills the input schema's defaults, as a run request would
    const block: RecipeRunSpec = {
      slug: recipe.slug, contract: contract.contract, impl: contract.implementation.impl, implementation: contract.implementation, input,
      max_pages: 1, unit_price: 0, reserved_units: 1, test_run: true,
    }
    const spec = recipeJobSpec(recipe, block, contract.engine, undefined, options.overrides, { allowlist: options.allowlist, isTimeZone: () => true })
    if (Either.isLeft(spec)) return options.log(`recipe-health: ${spec.left.message}`)
    const clock = yield* Clock
    yield* submitJob({
      org_id: HEALTH_ORG_ID, api_key_id: null, spec: spec.right, now: clock.now(), natural_key: testRunToken(recipe.slug, slot),
      origin: { _tag: 'service', name: 'recipe-health' },
      metadata: { correlation_id: testRunToken(recipe.slug, slot), causation_id: null, actor: 'recipe-health' },
    })
  })

/**
 * The recipe-health processor: at every slot of the interval (read from the Clock), one test run per recipe; the
 * health itself is the recipe-health projection of those runs. Sleeps on the clock between slots.
 */
export const recipeHealthLoop = (options: RecipeHealthOptions) =>
  Effect.gen(function* () {
    const clock = yield* Clock
    for (;;) {
      const slot = testSlot(clock.now(), options.intervalMs)
      for (const recipe of options.catalogue.values()) {
        if (recipe.disabled) continue
        yield* submitTestRun(recipe, slot, options).pipe(Effect.catchAll((error) => Effect.sync(() => options.log(`recipe-health: test run of ${recipe.slug} not submitted`, error))))
      }
      yield* clock.sleepUntil(new Date(slot.getTime() + options.intervalMs))
    }
  })
