/**
 * A recipe run request (POST /v1/recipes/{slug}/runs, SPEC 2.10 and 7.2) checked against the catalogue and the
 * plan, in the order the errors of SPEC 7.2 are meant to be read: the body's shape (400 invalid_payload), the
 * recipe (404), the plan (403 recipe_not_in_plan), a disabled recipe (409), the contract (404, 410 when sunset),
 * then the input against the contract's input schema (422 invalid_recipe_input with details).
 */
import { Either } from 'effect'
import { fieldError, Forbidden, Gone, MissingFields, NotFound, StateConflict, ValidationFailed, type FieldError } from '../errors.js'
import { MAX_IDEMPOTENCY_TOKEN_LENGTH } from '../job/spec.js'
import type { Plan } from '../plans.js'
import { chooseContract } from './contracts.js'
import { creditsPerUnit, pagesAllowed, reservedUnits } from './pricing.js'
import type { RecipeRunSpec } from './run-spec.js'
import { schemaProblems } from './schemas.js'
import type { Contract, Recipe } from './types.js'

export interface RecipeRunRequest {
  readonly input: Record<string, unknown>
  readonly contract?: number
  readonly idempotency_token?: string
  readonly max_pages?: number
}

export type RunRequestError = MissingFields | NotFound | Forbidden | StateConflict | Gone | ValidationFailed

const FIELDS = new Set(['input', 'contract', 'idempotency_token', 'max_pages'])
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
/** Stealth recipes need Pro or higher (SPEC 2.10). */
const STEALTH_PLANS = new Set(['pro', 'business', 'enterprise'])

const invalidPayload = (message: string) => new MissingFields({ errors: [fieldError('input', 'invalid_payload', message)] })

/** The body's shape: `{input: {...}}` plus the optional fields, each of its type (400 for the shape, 422 for a field). */
export const parseRunRequest = (body: unknown): Either.Either<RecipeRunRequest, RunRequestError> => {
  if (!isObject(body) || !isObject(body.input)) return Either.left(invalidPayload('the body must be {input: {...}} with an object input'))
  const unknown = Object.keys(body).filter((k) => !FIELDS.has(k))
  if (unknown.length > 0) return Either.left(invalidPayload(`unknown field ${unknown[0]}: the body takes input, contract, idempotency_token and max_pages`))
  const errors: FieldError[] = []
  const positive = (name: string) => {
    const v = body[name]
    if (v !== undefined && !(Number.isSafeInteger(v) && (v as number) >= 1)) errors.push(fieldError(name, `invalid_${name}`, `${name} must be a whole number of at least 1`))
  }
  positive('contract')
  positive('max_pages')
  const token = body.idempotency_token
  if (token !== undefined && !(typeof token === 'string' && token.length >= 1 && token.length <= MAX_IDEMPOTENCY_TOKEN_LENGTH && !/[\u0000-\u001f\u007f]/.test(token))) {
    errors.push(fieldError('idempotency_token', 'invalid_idempotency_token', `idempotency_token must be 1 to ${MAX_IDEMPOTENCY_TOKEN_LENGTH} characters without control characters`))
  }
  if (errors.length > 0) return Either.left(new ValidationFailed({ errors }))
  return Either.right(body as unknown as RecipeRunRequest)
}

export interface CheckedRun {
  readonly recipe: Recipe
  readonly contract: Contract
  readonly block: RecipeRunSpec
}

/** Whether a plan may run a recipe at all (listing and runs): stealth recipes need Pro or higher. */
export const planRunsRecipe = (plan: Plan, contract: Contract) => contract.engine !== 'stealth' || STEALTH_PLANS.has(plan.name)

/** The run a request asks for, with its validated input (defaults filled) and the credits it reserves. */
export const checkRunRequest = (
  catalogue: ReadonlyMap<string, Recipe>, slug: string, request: RecipeRunRequest, plan: Plan, now: Date,
): Either.Either<CheckedRun, RunRequestError> => {
  const recipe = catalogue.get(slug)
  if (!recipe) return Either.left(new NotFound({ resource: 'recipe', id: slug }))
  const choice = chooseContract(recipe, request.contract, now)
  if (!choice.ok && choice.code === 'recipe_not_found') return Either.left(new NotFound({ resource: 'recipe', id: `${slug} contract ${request.contract}` }))
  const contract = choice.ok ? choice.contract : recipe.contracts.find((c) => c.contract === request.contract)!
  if (!planRunsRecipe(plan, contract)) return Either.left(new Forbidden({ code: 'recipe_not_in_plan', message: `recipe ${slug} runs on the stealth engine, which needs the Pro plan or higher` }))
  if (recipe.disabled) return Either.left(new StateConflict({ code: 'recipe_disabled', message: `recipe ${slug} is temporarily disabled; retry later` }))
  if (!choice.ok) return Either.left(new Gone({ code: choice.code, message: choice.message }))
  const paged = contract.billing.unit === 'page'
  if (!paged && request.max_pages !== undefined) {
    return Either.left(new ValidationFailed({ errors: [fieldError('max_pages', 'invalid_max_pages', `recipe ${slug} is billed per run and takes no max_pages`)] }))
  }
  const input = structuredClone(request.input)
  const problems = schemaProblems(contract.input_schema, input)
  if (problems.length > 0) {
    return Either.left(new ValidationFailed({
      errors: problems.map((p) => fieldError(`input${p.pointer.replace(/\//g, '.')}`, 'invalid_recipe_input', `input${p.pointer.replace(/\//g, '.')} ${p.message}`)),
    }))
  }
  const maxPages = paged ? pagesAllowed(request.max_pages, plan.recipeMaxPages) : 1
  return Either.right({
    recipe, contract,
    block: {
      slug, contract: contract.contract, impl: contract.implementation.impl, implementation: contract.implementation, input, max_pages: maxPages,
      unit_price: creditsPerUnit(contract.engine, contract.multiplier), reserved_units: reservedUnits(contract, maxPages), test_run: false,
    },
  })
}
