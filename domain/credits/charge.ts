import type { ChargeReason } from '../job/events.js'
import type { JobOrigin } from '../job/origin.js'
import type { Manifest } from '../job/events.js'
import { runOutcome } from '../monitor/run-outcome.js'
import { isBilled, type RecipeOutcome } from '../recipe/outcomes.js'
import type { RecipeRunSpec } from '../recipe/run-spec.js'

/** A finished job as the credits decision reads it: what was asked (origin, weight, recipe block) and how it ended. */
export interface FinishedJob {
  readonly origin: JobOrigin
  /** Credits reserved at admission: the engine weight, or a recipe run's reservation. */
  readonly weight: number
  readonly recipe?: RecipeRunSpec | undefined
  readonly end: {
    readonly _tag: 'JobSucceeded' | 'JobFailed'
    readonly manifest?: Manifest | undefined
    readonly recipe?: { readonly outcome: RecipeOutcome; readonly units?: number | undefined } | undefined
  }
}

export interface Charge { readonly credits: number; readonly reason: ChargeReason }

/**
 * What a finished job costs, decided once when it ends (SPEC 5): a recipe run its billed units at its unit price
 * (billed outcomes only, never above its reservation); a monitor run's job its weight only when the page delivered
 * (a blocked or failed run is free); any other job its engine weight when it succeeded; a failed job, a health test
 * run and a skipped run (which never has a job) nothing. Null: nothing is charged.
 */
export const decideCharge = (job: FinishedJob): Charge | null => {
  if (job.origin._tag === 'service') return null
  if (job.recipe) {
    const run = job.end.recipe
    if (!run || !isBilled(run.outcome)) return null
    const credits = Math.min(run.units ?? 0, job.recipe.reserved_units) * job.recipe.unit_price
    return credits > 0 ? { credits, reason: 'recipe_units' } : null
  }
  if (job.end._tag !== 'JobSucceeded') return null
  if (job.origin._tag === 'monitor_run') {
    const outcome = runOutcome({ _tag: 'JobSucceeded', manifest: job.end.manifest ?? {} })
    return outcome.status === 'delivered' ? { credits: job.weight, reason: 'monitor_run_delivered' } : null
  }
  return job.weight > 0 ? { credits: job.weight, reason: 'job_succeeded' } : null
}

/**
 * The charge of a job that ended before charges were recorded (a terminal event without `origin`): the rule of that
 * time, so an old log replays to the ledger it had. A recipe run's record then carried its own price.
 */
export const legacyCharge = (job: { readonly weight: number; readonly monitor_run: boolean }, end: {
  readonly _tag: 'JobSucceeded' | 'JobFailed'; readonly manifest?: Manifest | undefined; readonly recipe?: { readonly credits_charged?: number | undefined } | undefined
}): number => {
  if (end.recipe) return Math.min(job.weight, end.recipe.credits_charged ?? 0)
  if (end._tag !== 'JobSucceeded') return 0
  const delivered = !job.monitor_run || runOutcome({ _tag: 'JobSucceeded', manifest: end.manifest ?? {} }).status === 'delivered'
  return delivered ? job.weight : 0
}
