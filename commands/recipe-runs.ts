import { Effect, Either } from 'effect'
import type { Allowlist } from '../domain/address-policy.js'
import { Unavailable } from '../domain/errors.js'
import type { JobSpecContext } from '../domain/job/spec.js'
import type { KeyLimits } from '../domain/org/events.js'
import { PLANS, type PlanName } from '../domain/plans.js'
import type { OriginOverrides } from '../domain/recipe/catalogue.js'
import { recipeJobSpec } from '../domain/recipe/job-spec.js'
import { checkRunRequest, type RecipeRunRequest } from '../domain/recipe/run-request.js'
import type { Recipe } from '../domain/recipe/types.js'
import type { EventMetadata } from '../ports/event-store.js'
import { submitAdmittedJob } from './admit-job.js'
import { currentTime } from './clock.js'

export interface RunRecipeInput {
  readonly org_id: string
  readonly plan: PlanName
  readonly key: { readonly key_id: string; readonly limits: KeyLimits }
  readonly slug: string
  /** The body as parseRunRequest read it. */
  readonly request: RecipeRunRequest
  readonly catalogue: ReadonlyMap<string, Recipe>
  readonly overrides: OriginOverrides
  /** SSRF_ALLOWLIST. */
  readonly allowlist: Allowlist
  readonly isTimeZone: JobSpecContext['isTimeZone']
  readonly metadata: EventMetadata
}

/**
 * A recipe run (POST /v1/recipes/{slug}/runs): the request checked against the catalogue and the plan's rules
 * (checkRunRequest: stealth recipes on Pro and above, max_pages capped by the plan), then admitted as a job under
 * the plan's and key's limits, its origin the recipe. Fails with the tagged errors the route translates; a first
 * origin the egress policy refuses is 503 recipe_unavailable.
 */
export const runRecipe = (input: RunRecipeInput) =>
  Effect.gen(function* () {
    const now = yield* currentTime
    const checked = checkRunRequest(input.catalogue, input.slug, input.request, PLANS[input.plan], now)
    if (Either.isLeft(checked)) return yield* Effect.fail(checked.left)
    const { recipe, contract, block } = checked.right
    const spec = recipeJobSpec(recipe, block, contract.engine, input.request.idempotency_token, input.overrides, { allowlist: input.allowlist, isTimeZone: input.isTimeZone })
    if (Either.isLeft(spec)) return yield* Effect.fail(spec.left)
    const admission = yield* submitAdmittedJob({
      org_id: input.org_id, plan: input.plan, key: input.key, enforcement: input.key.limits.enforcement_mode,
      spec: spec.right, origin: { _tag: 'recipe_run', slug: input.slug, contract: block.contract, impl: block.impl },
      allowlist: input.allowlist, now, metadata: input.metadata,
    }).pipe(Effect.catchTag('ValidationFailed', (e) =>
      Effect.fail(new Unavailable({ code: 'recipe_unavailable', message: `recipe ${input.slug} cannot reach its site now: ${e.errors[0]?.message ?? 'refused'}` }))))
    return { admission, block }
  })
