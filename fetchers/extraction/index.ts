/**
 * Extraction hooks at run time (SPEC 2.2). Every tier hands its page to `extractOffThread` (fetchers/workers): the
 * hooks run in a worker thread with `runExtraction`, never on the service's main thread. The light tier passes the
 * response text as `html` for markup responses and as `body` always; browser tiers pass the rendered DOM as `html`.
 * The page is parsed once per job and shared by all hooks.
 *
 * Hook statuses: `ok` (matched), `no_match` (nothing matched; never fails the job), `error` (the hook itself failed:
 * regex or XPath time budget exceeded, page over a cap of docs/limits.md, body not JSON for jsonpath, page not markup
 * for css/xpath/records...; `error` holds a short message).
 *
 * Time: the job's regex hooks share REGEX_JOB_BUDGET_MS; each XPath checks XPATH_TIME_BUDGET_MS; the other hooks
 * share JOB_SYNC_BUDGET_MS, checked between hooks. The worker's hard deadline (EXTRACTION_DEADLINE_MS) ends anything
 * that runs past these (a CSS selector cannot be interrupted): the job then fails with `extraction_timeout`.
 */
import type { ExtractionHook, ExtractionResult, ExtractionSpec, HookResult } from '../../domain/extraction.js'
import { runCss } from './css.js'
import { runJsonPath } from './jsonpath.js'
import { PageContext, PageRefused, type PageInput } from './page.js'
import { runRecords } from './records.js'
import { RegexBudget } from './regex.js'
import { failed } from './result.js'
import { runXPath } from './xpath.js'
import { XPATH_TIME_BUDGET_MS } from './xpath-engine.js'

export type { ExtractionResult, HookResult, HookStatus } from '../../domain/extraction.js'
export { PageContext, type PageInput } from './page.js'
export { REGEX_JOB_BUDGET_MS } from './regex.js'
export { XPATH_TIME_BUDGET_MS } from './xpath-engine.js'
export { applyTransforms, parseBoolean, parseDate, parseNumber } from './transforms.js'

/** Time for one job's css/xpath/jsonpath/records hooks; later hooks past it end with an error. */
export const JOB_SYNC_BUDGET_MS = 10_000

const SYNC_RUNNERS = { css: runCss, jsonpath: runJsonPath, records: runRecords } as const

function runHook(hook: ExtractionHook, page: PageContext, deadline: number, regex: RegexBudget): HookResult {
  const refused = page.refusal()
  if (refused) return failed(hook, refused.message)
  try {
    if (hook.type === 'regex') return regex.run(hook, page)
    const left = deadline - performance.now()
    if (left <= 0) return failed(hook, 'the job\'s extraction time budget was used up by earlier hooks')
    if (hook.type === 'xpath') return runXPath(hook, page, Math.min(XPATH_TIME_BUDGET_MS, Math.ceil(left)))
    return SYNC_RUNNERS[hook.type as keyof typeof SYNC_RUNNERS](hook, page)
  } catch (e) {
    if (e instanceof PageRefused) return failed(hook, e.message)
    return failed(hook, `hook failed: ${(e as Error).message}`)
  }
}

/** The hooks of a job over one page, in this thread (a worker's, in the service). */
export function runExtraction(spec: ExtractionSpec, page: PageInput): ExtractionResult {
  return runHooks(spec, new PageContext(page))
}

/** The hooks of a job over one shared page context (which parses the page at most once). */
export function runHooks(spec: ExtractionSpec, context: PageContext, syncBudgetMs = JOB_SYNC_BUDGET_MS, regex = new RegexBudget()): ExtractionResult {
  const deadline = performance.now() + syncBudgetMs
  return { hooks: spec.hooks.map((hook) => runHook(hook, context, deadline, regex)) }
}
