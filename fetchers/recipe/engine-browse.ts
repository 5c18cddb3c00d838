import { overriddenUrl, type OriginOverrides } from '../../domain/recipe/catalogue.js'
import type { JobSpec } from '../../domain/job/spec.js'
import type { ScriptedPage } from '../browser/scripted-page.js'
import type { Engine, EngineRequest } from '../engine.js'
import type { RecipeRunResult } from './runtime.js'

/** A browser session only reads documents: no artifacts are built, so the spec asks for none. */
const NOTHING = {
  include_html: false, include_response_body: false, include_extraction: false, include_screenshot: false, include_har: false,
  include_reader: false, include_links: false, include_text: false, include_page_metadata: false, include_console: false,
} as const

/**
 * Runs a recipe's browser steps in one session of a browser engine, with the job's settings, through the egress
 * gateway like any job and within its timeout_ms. RECIPE_ORIGIN_OVERRIDES move each navigation to a local origin.
 * A session the engine ended (its deadline, a crash, no browser) is the run's `timeout` or `error`.
 */
export const engineBrowse = async (
  engine: Engine, job: Pick<EngineRequest, 'job_id' | 'org_id'>, spec: JobSpec, overrides: OriginOverrides, signal: AbortSignal,
  run: (page: ScriptedPage) => Promise<RecipeRunResult>,
): Promise<RecipeRunResult> => {
  if (!engine.browse) return { outcome: 'error', pages: 0, detail: `the ${engine.tier} engine cannot run browser steps`, matched: {} }
  const { extraction: _unused, ...base } = spec
  let navigations = 0
  const outcome = await engine.browse({ ...job, signal, spec: { ...base, actions: [], artifact_options: { ...spec.artifact_options, ...NOTHING } } },
    (page) => run({ ...page, navigate: (url) => { navigations += 1; return page.navigate(overriddenUrl(url, overrides)) } }))
  if (outcome.ok) return outcome.value
  const timedOut = outcome.failure_reason === 'timeout' || outcome.failure_reason === 'navigation_timeout'
  return { outcome: timedOut ? 'timeout' : 'error', pages: navigations, detail: `${outcome.failure_reason}: ${outcome.message}`, matched: {} }
}
