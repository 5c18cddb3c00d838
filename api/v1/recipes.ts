import { Either } from 'effect'
import type { FastifyInstance } from 'fastify'
import { runRecipe } from '../../commands/recipe-runs.js'
import { StateConflict } from '../../domain/errors.js'
import { PLANS, type PlanName } from '../../domain/plans.js'
import { newestContract } from '../../domain/recipe/contracts.js'
import { parseRunRequest, planRunsRecipe } from '../../domain/recipe/run-request.js'
import type { Contract, Recipe } from '../../domain/recipe/types.js'
import { NotFound } from '../../domain/errors.js'
import { JOBS, recipeBlockOf } from '../../projections/jobs.js'
import { waitForPosition } from '../../projections/read-your-writes.js'
import { recipeHealthOf } from '../../projections/recipe-health.js'
import type { RecipeHealth } from '../../domain/recipe/health.js'
import { observe, principalOf, requireApiKey } from '../auth.js'
import type { RouteContext } from '../context.js'
import { requestMetadata } from '../event-metadata.js'
import { errors, security } from './route-helpers.js'

const isTimeZone = () => true

const healthView = (health: RecipeHealth | undefined) => ({
  state: health?.state ?? 'no_data',
  last_test_at: health?.last_test_at ?? null,
  last_outcome: health?.last_outcome ?? null,
  site_refusal: health?.site_refusal ?? null,
  consecutive_failures: health?.consecutive_failures ?? 0,
  consecutive_passes: health?.consecutive_passes ?? 0,
})

const contractView = (contract: Contract) => ({
  contract: contract.contract, impl: contract.implementation.impl, engine: contract.engine, credits_per_unit: contract.credits_per_unit,
  billing_unit: contract.billing.unit === 'page' ? `page (${contract.billing.per})` : 'run', sunset_at: contract.sunset_at ?? null,
  input_schema: contract.input_schema, output_schema: contract.output_schema, example: contract.example,
})

const summaryView = (recipe: Recipe, health: RecipeHealth | undefined) => {
  const newest = newestContract(recipe)
  return {
    slug: recipe.slug, title: recipe.title, category: recipe.category, status: recipe.status, disabled: recipe.disabled ?? false,
    health: healthView(health), contract: newest.contract, engine: newest.engine, credits_per_unit: newest.credits_per_unit,
    billing_unit: newest.billing.unit, contracts: recipe.contracts.map((c) => c.contract),
  }
}

const HealthSchema = {
  type: 'object',
  description: 'From test runs of the example input every RECIPE_HEALTH_INTERVAL_MINUTES (default 15): `operational`, `degraded` (two consecutive failing test runs; back after two passes) or `no_data` (no test run yet). `site_refusal` reports a latest test run the site refused (`blocked`, `rate_limited`), which neither passes nor fails.',
  properties: {
    state: { type: 'string', enum: ['operational', 'degraded', 'no_data'] }, last_test_at: { type: ['string', 'null'] },
    last_outcome: { type: ['string', 'null'] }, site_refusal: { type: ['string', 'null'], enum: ['blocked', 'rate_limited', null] },
    consecutive_failures: { type: 'integer' }, consecutive_passes: { type: 'integer' },
  },
} as const

const RunAnswerSchema = {
  type: 'object',
  properties: {
    job_id: { type: 'string' }, status: { type: 'string' },
    recipe: { type: 'object', properties: { slug: { type: 'string' }, contract: { type: 'integer' }, impl: { type: 'integer' } } },
  },
} as const

const slugParams = { type: 'object', required: ['slug'], properties: { slug: { type: 'string', maxLength: 64 } } } as const

export const recipeRoutes = async (app: FastifyInstance, ctx: RouteContext) => {
  const catalogue = ctx.settings.recipes?.catalogue ?? new Map<string, Recipe>()
  const overrides = ctx.settings.recipes?.overrides ?? new Map<string, string>()

  app.get('/v1/recipes', {
    preHandler: requireApiKey(ctx, 'recipes.read'),
    schema: {
      tags: ['recipes'], summary: 'List the recipes the account can run', security,
      description: 'Each with category, status (`beta`), health, newest contract, engine and credits per unit. Stealth recipes are listed for Pro plans and higher.',
      response: {
        200: {
          type: 'object',
          properties: {
            items: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  slug: { type: 'string' }, title: { type: 'string' }, category: { type: 'string' }, status: { type: 'string', enum: ['beta', 'ga'] },
                  disabled: { type: 'boolean' }, health: HealthSchema, contract: { type: 'integer' }, engine: { type: 'string' },
                  credits_per_unit: { type: 'integer' }, billing_unit: { type: 'string', enum: ['run', 'page'] }, contracts: { type: 'array', items: { type: 'integer' } },
                },
              },
            },
          },
        },
        ...errors(401, 403),
      },
    },
  }, async (request) => {
    const plan = PLANS[principalOf(request).plan as PlanName]
    const runnable = [...catalogue.values()].filter((r) => planRunsRecipe(plan, newestContract(r))).sort((a, b) => a.slug.localeCompare(b.slug))
    const health = await ctx.run(recipeHealthOf(runnable.map((r) => r.slug)))
    return { items: runnable.map((r) => summaryView(r, health.get(r.slug))) }
  })

  app.get('/v1/recipes/:slug', {
    preHandler: requireApiKey(ctx, 'recipes.read'),
    schema: {
      tags: ['recipes'], summary: 'Get a recipe and its contracts', security, params: slugParams,
      description: 'Every contract with its input and output schemas, example input and output, engine, credits per unit, billing unit, implementation number and sunset date. Unknown recipe: 404 `recipe_not_found`.',
      response: { 200: { type: 'object', additionalProperties: true, properties: { slug: { type: 'string' }, health: HealthSchema, contracts: { type: 'array', items: { type: 'object', additionalProperties: true } } } }, ...errors(401, 403, 404) },
    },
  }, async (request) => {
    const { slug } = request.params as { slug: string }
    const recipe = catalogue.get(slug)
    if (!recipe) throw new NotFound({ resource: 'recipe', id: slug })
    const health = await ctx.run(recipeHealthOf([slug]))
    return { ...summaryView(recipe, health.get(slug)), attribution: recipe.attribution ?? null, contracts: recipe.contracts.map(contractView) }
  })

  app.post('/v1/recipes/:slug/runs', {
    preHandler: requireApiKey(ctx, 'recipes.run'),
    schema: {
      tags: ['recipes'], summary: 'Run a recipe', security, params: slugParams,
      description: 'Body `{input: {...}, contract?, idempotency_token?, max_pages?}`. Answers 201 `{job_id, status: queued, recipe: {slug, contract, impl}}`; the result comes from GET /v1/jobs/{job_id}/result (`recipe` with `outcome`, `captured_at`, `output`). An `idempotency_token` already used by the organization answers 200 with the original job and `Idempotent-Replayed: true`. Errors (SPEC 7.2): 400 `invalid_payload` (body not `{input: {...}}`), 403 `recipe_not_in_plan` (stealth recipes need Pro or higher), 404 `recipe_not_found` (unknown recipe or contract), 409 `recipe_disabled`, 410 `recipe_contract_sunset`, 422 `invalid_recipe_input` (with `details` per field; also `invalid_contract`, `invalid_max_pages`, `invalid_idempotency_token`), 429 `plan_limit_monthly_credits`, `plan_limit_concurrent_jobs`, `plan_limit_job_type_not_allowed` and the key\'s limits, 503 `recipe_unavailable` (the site cannot be reached from this deployment now; retry later). `max_pages` (page-billed recipes only) is capped by the plan; the run reserves credits for it and is charged only the pages fetched. Only billed outcomes (ok, ok_empty, not_found) cost credits. An input value (or a value a site answered) that would make a whole `.` or `..` segment of a request path ends the run with outcome `error` and no request is sent: a value never moves a request along the site\'s path.',
      body: {
        type: 'object',
        properties: {
          input: { type: 'object', description: 'Fits the contract\'s input_schema.' }, contract: { type: 'integer', minimum: 1 },
          idempotency_token: { type: 'string', minLength: 1, maxLength: 255 }, max_pages: { type: 'integer', minimum: 1 },
        },
      },
      response: { 200: RunAnswerSchema, 201: RunAnswerSchema, ...errors(400, 401, 403, 404, 409, 410, 422, 429, 503) },
    },
  }, async (request, reply) => {
    const principal = principalOf(request)
    const { slug } = request.params as { slug: string }
    const parsed = parseRunRequest(request.body)
    if (Either.isLeft(parsed)) throw parsed.left
    const { admission, block } = await ctx.run(runRecipe({
      org_id: principal.org_id, plan: principal.plan as PlanName, key: { key_id: principal.key_id, limits: principal.limits },
      slug, request: parsed.right, catalogue, overrides, allowlist: ctx.settings.ssrfAllowlist, isTimeZone,
      metadata: requestMetadata(request, `api_key:${principal.key_id}`),
    }))
    const current = await ctx.run(waitForPosition(JOBS, admission.job_id, admission.position))
    if (admission._tag === 'Created') {
      observe(request, reply, principal, admission.observed)
      return reply.code(201).send({ job_id: admission.job_id, status: 'queued', recipe: { slug, contract: block.contract, impl: block.impl } })
    }
    if (!current) throw new StateConflict({ code: 'idempotent_request_in_progress', message: 'a request with this idempotency_token is being processed; retry shortly' })
    const original = recipeBlockOf(current)
    return reply.code(200).header('Idempotent-Replayed', 'true').send({
      job_id: current.job_id, status: current.status,
      recipe: original ? { slug: original.slug, contract: original.contract, impl: original.impl } : null,
    })
  })
}
