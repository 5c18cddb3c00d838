/**
 * Recipe health (SPEC 2.10) from its test runs: No data yet until a test run decides; Operational after a pass;
 * Degraded after two consecutive failing test runs, and back to Operational after two consecutive passes. A test
 * run the site refused (`blocked`, `rate_limited`) says nothing about the recipe: it is reported on its own and
 * neither passes nor fails.
 */
import type { RecipeOutcome } from './outcomes.js'

export type HealthState = 'operational' | 'degraded' | 'no_data'

export interface RecipeHealth {
  readonly state: HealthState
  readonly consecutive_failures: number
  readonly consecutive_passes: number
  readonly last_outcome: RecipeOutcome | null
  readonly last_test_at: string | null
  /** The site refused the latest test run (blocked or rate_limited), reported apart from the health state. */
  readonly site_refusal: 'blocked' | 'rate_limited' | null
  readonly last_refusal_at: string | null
}

export const NO_DATA: RecipeHealth = {
  state: 'no_data', consecutive_failures: 0, consecutive_passes: 0, last_outcome: null, last_test_at: null, site_refusal: null, last_refusal_at: null,
}

/** Runs of a recipe's example input that prove it works: a real answer (the example is chosen to have one). */
const PASSES: ReadonlySet<RecipeOutcome> = new Set(['ok', 'ok_empty'])
const REFUSALS: ReadonlySet<RecipeOutcome> = new Set(['blocked', 'rate_limited'])
/** Consecutive failing test runs that make a recipe Degraded, and consecutive passes that make it Operational again. */
export const DEGRADE_AFTER = 2
export const RECOVER_AFTER = 2

export const nextHealth = (health: RecipeHealth, outcome: RecipeOutcome, at: string): RecipeHealth => {
  if (REFUSALS.has(outcome)) return { ...health, last_outcome: outcome, last_test_at: at, site_refusal: outcome as 'blocked' | 'rate_limited', last_refusal_at: at }
  const settled = { ...health, last_outcome: outcome, last_test_at: at, site_refusal: null }
  if (PASSES.has(outcome)) {
    const passes = health.consecutive_passes + 1
    const state: HealthState = health.state === 'degraded' && passes < RECOVER_AFTER ? 'degraded' : 'operational'
    return { ...settled, state, consecutive_passes: passes, consecutive_failures: 0 }
  }
  const failures = health.consecutive_failures + 1
  return { ...settled, state: failures >= DEGRADE_AFTER ? 'degraded' : health.state, consecutive_failures: failures, consecutive_passes: 0 }
}

/** The organization test runs are recorded under (never billed: their unit price is 0). */
export const HEALTH_ORG_ID = 'service-recipe-health'

/** The natural key of one test run: a recipe at one scheduled instant (a restart or a second process makes the same job). */
export const testRunToken = (slug: string, scheduledAt: Date) => `recipe-health:${slug}:${scheduledAt.toISOString()}`

/** The slot a test run belongs to: the start of the interval `now` is in. */
export const testSlot = (now: Date, intervalMs: number) => new Date(Math.floor(now.getTime() / intervalMs) * intervalMs)
