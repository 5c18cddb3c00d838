import { Effect } from 'effect'
import { recipeHealthLoop } from '../../processors/recipe-health.js'
import type { Config } from '../config.js'
import type { Logger } from '../logger.js'

/**
 * The recipe-health role: submits a test run of every recipe each RECIPE_HEALTH_INTERVAL_MINUTES, on the Clock.
 * Off unless ROLES names it (test runs reach the real sites), also on the embedded profile.
 */
export const recipeHealthRole = (config: Config, logger: Logger) =>
  Effect.forkScoped(recipeHealthLoop({
    catalogue: config.recipes.catalogue, overrides: config.recipes.overrides, allowlist: config.ssrfAllowlist,
    intervalMs: config.recipes.healthIntervalMs, log: logger.error,
  }))
