import type { JobCommand } from '../domain/job/decider.js'
import type { JobSpec } from '../domain/job/spec.js'
import type { OriginOverrides, RecipeCatalogue } from '../domain/recipe/catalogue.js'
import { hasOutput, isBilled } from '../domain/recipe/outcomes.js'
import { chargedUnits } from '../domain/recipe/pricing.js'
import type { RecipeRunRecord, RecipeRunSpec } from '../domain/recipe/run-spec.js'
import type { Contract, Implementation } from '../domain/recipe/types.js'
import type { ArtifactRecord } from '../domain/job/events.js'
import type { Engine, EngineArtifact } from '../fetchers/engine.js'
import { jobManifest, jobTiming } from '../fetchers/manifest.js'
import { engineBrowse } from '../fetchers/recipe/engine-browse.js'
import { engineFetch } from '../fetchers/recipe/engine-fetch.js'
import { offThreadSelection } from '../fetchers/recipe/off-thread.js'
import { runRecipe, type RecipeFetch, type RecipeRunResult } from '../fetchers/recipe/runtime.js'

export interface RecipeRunOptions {
  readonly catalogue: RecipeCatalogue
  readonly overrides: OriginOverrides
}

/** Output above this as JSON (SPEC 8: recipe result inline size) is stored as an artifact and delivered as `result_url`. */
export const MAX_INLINE_OUTPUT_BYTES = 256 * 1024

/** Stores a job's artifacts in the blob store and answers their records (the job runner's). */
export type StoreArtifacts = (artifacts: readonly EngineArtifact[]) => Promise<readonly ArtifactRecord[]>

/** Where the output goes: inline, or (over the inline size) an artifact of the job delivered as a signed URL. */
const deliveredOutput = async (output: unknown, store: StoreArtifacts) => {
  const bytes = new TextEncoder().encode(JSON.stringify(output))
  if (bytes.byteLength <= MAX_INLINE_OUTPUT_BYTES) return { fields: { output }, artifacts: [] }
  const artifacts = await store([{ artifact_type: 'recipe_output', content_type: 'application/json', bytes }])
  return { fields: { output_artifact_id: artifacts[0]!.artifact_id }, artifacts }
}

/** A browser contract's light steps: the linter refuses them, so this only answers a recipe that skipped it. */
const NO_LIGHT_REQUESTS: RecipeFetch = async () => ({ ok: false, outcome: 'error', message: 'light steps do not run on a browser engine' })

/** The implementation recorded at admission; for jobs admitted before it was recorded, the catalogue's if it is the same impl. */
const pinnedImplementation = (block: RecipeRunSpec, served: Contract | undefined): Implementation | undefined =>
  (block.implementation as Implementation | undefined) ?? (served?.implementation.impl === block.impl ? served.implementation : undefined)

const ended = (outcome: RecipeRunResult['outcome'], detail: string): RecipeRunResult => ({ outcome, pages: 0, detail, matched: {} })

/**
 * Runs the recipe block of a job on its engine and answers the job's terminal command: billed outcomes (ok, ok_empty,
 * not_found) succeed and are charged their units at the reserved unit price (pages fetched, never more than
 * reserved, for page-billed contracts); every other outcome fails the job with the outcome as failure_reason, free.
 */
export const runRecipeJob = async (
  jobId: string, orgId: string, spec: JobSpec & { recipe: RecipeRunSpec }, engine: Engine, options: RecipeRunOptions, signal: AbortSignal, now: () => string,
  store: StoreArtifacts,
): Promise<JobCommand> => {
  const block = spec.recipe
  const startedAt = Date.now()
  const recipe = options.catalogue.get(block.slug)
  const served = recipe?.contracts.find((c) => c.contract === block.contract)
  const implementation = pinnedImplementation(block, served)
  const contract = served && implementation ? { ...served, implementation } : undefined
  let result: RecipeRunResult
  if (!recipe || !contract) result = ended('error', `recipe ${block.slug} contract ${block.contract} impl ${block.impl} is not served by this deployment`)
  else {
    // The page work runs in the CPU pool, in the organization's lane.
    const run = { recipe, contract, input: block.input, maxPages: block.max_pages, selection: offThreadSelection(orgId) }
    const job = { job_id: jobId, org_id: orgId }
    result = contract.engine === 'light'
      ? await runRecipe({ ...run, fetch: engineFetch(engine, job, spec, options.overrides, signal) })
      : await engineBrowse(engine, job, spec, options.overrides, signal, (browser) => runRecipe({ ...run, fetch: NO_LIGHT_REQUESTS, browser }))
  }
  const delivered = hasOutput(result.outcome) ? await deliveredOutput(result.output, store) : { fields: {}, artifacts: [] }
  const billed = isBilled(result.outcome)
  const units = contract ? Math.min(chargedUnits(contract, result.pages), block.reserved_units) : 0
  const record: RecipeRunRecord = {
    outcome: result.outcome, pages: result.pages, detail: result.detail, matched: result.matched,
    units,
    ...delivered.fields,
  }
  const manifest = jobManifest({
    egress: { mode: 'managed' }, engine: { tier: engine.tier }, timing: jobTiming(startedAt), response: null,
    details: { recipe: { slug: block.slug, contract: block.contract, impl: block.impl, pages: result.pages } },
  })
  return billed
    ? { _tag: 'SucceedJob', job_id: jobId, manifest, artifacts: delivered.artifacts, recipe: record, now: now() }
    : { _tag: 'FailJob', job_id: jobId, failure_reason: result.outcome, message: result.detail ?? result.outcome, manifest, artifacts: delivered.artifacts, recipe: record, now: now() }
}
