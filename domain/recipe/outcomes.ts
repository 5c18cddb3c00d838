/** Recipe run outcomes (SPEC 3.5). */
export const RECIPE_OUTCOMES = [
  'ok', 'ok_empty', 'not_found', 'blocked', 'rate_limited', 'upstream_error', 'layout_changed', 'schema_invalid', 'timeout', 'error',
] as const
export type RecipeOutcome = (typeof RECIPE_OUTCOMES)[number]

/** Outcomes that cost credits: the site answered and the recipe understood the answer. */
export const BILLED_OUTCOMES: ReadonlySet<RecipeOutcome> = new Set(['ok', 'ok_empty', 'not_found'])

/** Outcomes whose job succeeds (the run completed with an answer); the others fail with the outcome as failure_reason. */
export const isBilled = (outcome: RecipeOutcome) => BILLED_OUTCOMES.has(outcome)

/** Outcomes that carry `output`. */
export const hasOutput = (outcome: RecipeOutcome) => outcome === 'ok' || outcome === 'ok_empty'
