import { fieldError, Unavailable } from '../errors.js'
import { validateJobSpec, type JobSpec, type JobSpecContext } from '../job/spec.js'
import { overriddenUrl, type OriginOverrides } from './catalogue.js'
import type { RecipeRunSpec } from './run-spec.js'
import type { Recipe } from './types.js'
import { Either } from 'effect'

/**
 * The job of a recipe run: the contract's engine with its defaults, the recipe's first origin (after
 * RECIPE_ORIGIN_OVERRIDES) as target, with the recipe block. No tags: tags are the customer's, and the job's origin
 * (`recipe_run`, set by the command that submits it) already records the recipe. A first origin the SSRF policy
 * refuses means the site cannot be reached from this deployment now: 503 recipe_unavailable.
 */
export const recipeJobSpec = (
  recipe: Recipe, block: RecipeRunSpec, engine: JobSpec['job_type'], idempotencyToken: string | undefined,
  overrides: OriginOverrides, ctx: JobSpecContext,
): Either.Either<JobSpec, Unavailable> => {
  const checked = validateJobSpec({
    job_type: engine, target_url: overriddenUrl(`${recipe.hosts[0]}/`, overrides),
    ...(idempotencyToken !== undefined ? { idempotency_token: idempotencyToken } : {}),
  }, ctx)
  if (!checked.ok) {
    const first = checked.errors[0] ?? fieldError('target_url', 'unavailable', 'unavailable')
    return Either.left(new Unavailable({ code: 'recipe_unavailable', message: `recipe ${recipe.slug} cannot reach its site from this deployment: ${first.message}` }))
  }
  return Either.right({ ...checked.spec, recipe: block })
}
