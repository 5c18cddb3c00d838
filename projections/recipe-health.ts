import { Effect } from 'effect'
import { NO_DATA, nextHealth, type RecipeHealth } from '../domain/recipe/health.js'
import { collection, defineProjection, getDoc, updateDoc, type Stored } from './projection.js'

/** A recipe's health from its test runs (SPEC 2.10). */
export type RecipeHealthDoc = Stored<RecipeHealth & { readonly slug: string }>
/** A test run under way: which recipe it tests (its terminal event names only the job). */
export type RecipeTestRunDoc = Stored<{ readonly slug: string; readonly counted: boolean }>

export const RECIPE_HEALTH = collection<RecipeHealthDoc>('recipe_health')
export const RECIPE_TEST_RUNS = collection<RecipeTestRunDoc>('recipe_test_runs')

/**
 * Health of every recipe, folded from its test-run jobs in log order. Each test run counts once (its document
 * remembers that it was counted, and every document is guarded by the position it last saw).
 */
export const recipeHealthProjection = defineProjection({
  name: 'projection.recipe-health',
  categories: ['job'],
  collections: [RECIPE_HEALTH.name, RECIPE_TEST_RUNS.name],
  concurrency: 1,
  ordering: 'log',
  fold: (event, envelope, view) => {
    switch (event._tag) {
      case 'JobRequested':
        if (event.spec.recipe?.test_run) updateDoc(view, RECIPE_TEST_RUNS, event.job_id, envelope, () => ({ slug: event.spec.recipe!.slug, counted: false }))
        return
      case 'JobSucceeded':
      case 'JobFailed': {
        // Only a recipe run's end records a recipe: any other job's end reads nothing.
        if (!event.recipe) return
        const run = view.get(RECIPE_TEST_RUNS, event.job_id)
        if (!run || run.counted) return
        const outcome = event.recipe.outcome
        updateDoc(view, RECIPE_HEALTH, run.slug, envelope, (doc) => ({ slug: run.slug, ...nextHealth(doc ?? NO_DATA, outcome, event.finished_at) }))
        return updateDoc(view, RECIPE_TEST_RUNS, event.job_id, envelope, (doc) => doc && { ...doc, counted: true })
      }
      default:
        return
    }
  },
})

/** Health of the given recipes (No data yet for those never tested). */
export const recipeHealthOf = (slugs: readonly string[]) =>
  Effect.forEach(slugs, (slug) => Effect.map(getDoc(RECIPE_HEALTH, slug), (doc) => [slug, doc ?? { ...NO_DATA, slug }] as const))
    .pipe(Effect.map((entries) => new Map(entries)))
