import { Schema } from 'effect'
import { RECIPE_OUTCOMES } from './outcomes.js'

/**
 * The recipe block of a job (ARCHITECTURE: a recipe run is a job `job-<id>` with a recipe block). Recorded in
 * JobRequested, so the run is reproducible from the log: the contract and implementation that ran, the validated
 * input, the page allowance and the prices that were reserved.
 */
export const RecipeRunSpec = Schema.Struct({
  slug: Schema.String,
  contract: Schema.Number,
  impl: Schema.Number,
  /**
   * The implementation as admitted (a recipe's `impl` with its steps, assertions, extractors and output): the job
   * runs this one, whatever the catalogue holds when it runs (a deploy between admission and run, a fetcher on
   * another version). Absent on jobs admitted before it was recorded, which run the catalogue's if its number matches.
   */
  implementation: Schema.optional(Schema.Unknown),
  input: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  /** Pages a paginating step may fetch (1 for contracts billed per run). */
  max_pages: Schema.Number,
  /** Credits per billing unit (engine weight × recipe multiplier, rounded up); 0 for test runs. */
  unit_price: Schema.Number,
  /** Units reserved at admission: max_pages for page-billed contracts, else 1. */
  reserved_units: Schema.Number,
  /** A health test run of the service: never billed. */
  test_run: Schema.Boolean,
})
export type RecipeRunSpec = typeof RecipeRunSpec.Type

/** How a recipe run ended, recorded with the job's terminal event. */
export const RecipeRunRecord = Schema.Struct({
  outcome: Schema.Literal(...RECIPE_OUTCOMES),
  /** Set for ok and ok_empty when the output is at most 256 KB as JSON (SPEC 8: recipe result inline size). */
  output: Schema.optional(Schema.Unknown),
  /** A larger output is stored as this artifact of the job (type `recipe_output`) and delivered as a signed `result_url`. */
  output_artifact_id: Schema.optional(Schema.String),
  pages: Schema.Number,
  /** Billing units the run used (pages fetched for page-billed contracts, else 1), capped by its reservation; priced by domain/credits/charge.ts. */
  units: Schema.optional(Schema.Number),
  /** Recorded by runs before their charge was a CreditsCharged event. */
  credits_charged: Schema.optional(Schema.Number),
  detail: Schema.NullOr(Schema.String),
  matched: Schema.Record({ key: Schema.String, value: Schema.Number }),
})
export type RecipeRunRecord = typeof RecipeRunRecord.Type

/** Credits a job reserves at admission: a recipe run its units at its unit price, any other job its engine weight. */
export const recipeReservation = (recipe: RecipeRunSpec) => recipe.unit_price * recipe.reserved_units
