/**
 * Extraction hooks at run time (SPEC 2.2). Every tier calls `runExtraction` with what it has: the
 * light tier passes the response text as `html` for markup responses and as `body` always; browser
 * tiers pass the rendered DOM as `html`. The page is parsed once per job and shared by all hooks.
 *
 * Hook statuses: `ok` (matched), `no_match` (nothing matched; never fails the job), `error` (the
 * hook itself failed: regex or XPath time budget exceeded, body not JSON for jsonpath, page not
 * markup for css/xpath/records...; `error` holds a short message).
 *
 * Time: each regex runs in a worker with REGEX_TIME_BUDGET_MS; each XPath checks XPATH_TIME_BUDGET_MS;
 * the job's main-thread hooks share JOB_SYNC_BUDGET_MS. CSS selectors cannot be interrupted.
 */
import type { ExtractionHook, ExtractionResult, ExtractionSpec, HookResult } from '../../domain/extraction.js'
import { runCss } from './css.js'
import { runJsonPath } from './jsonpath.js'
import { PageContext, type PageInput } from './page.js'
import { runRecords } from './records.js'
import { runRegex } from './regex.js'
import { failed } from './result.js'
import { runXPath } from './xpath.js'
import { XPATH_TIME_BUDGET_MS } from './xpath-engine.js'

export type { ExtractionResult, HookResult, HookStatus } from '../../domain/extraction.js'
export { PageContext, type PageInput } from './page.js'
export { closeRegexPool, RegexPool, REGEX_TIME_BUDGET_MS } from './regex-pool.js'
export { XPATH_TIME_BUDGET_MS } from './xpath-engine.js'
export { applyTransforms, parseBoolean, parseDate, parseNumber } from './transforms.js'

/** Main-thread time for one job's css/xpath/jsonpath/records hooks; later hooks past it end with an error. */
export const JOB_SYNC_BUDGET_MS = 10_000

const SYNC_RUNNERS = { css: runCss, jsonpath: runJsonPath, records: runRecords } as const

function runSync(hook: ExtractionHook, page: PageContext, deadline: number): HookResult {
  const left = deadline - performance.now()
  if (left <= 0) return failed(hook, 'the job\'s extraction time budget was used up by earlier hooks')
  try {
    if (hook.type === 'xpath') return runXPath(hook, page, Math.min(XPATH_TIME_BUDGET_MS, Math.ceil(left)))
    return SYNC_RUNNERS[hook.type as keyof typeof SYNC_RUNNERS](hook, page)
  } catch (e) {
    return failed(hook, `hook failed: ${(e as Error).message}`)
  }
}

export function runExtraction(spec: ExtractionSpec, page: PageInput): Promise<ExtractionResult> {
  return runHooks(spec, new PageContext(page))
}

/** The hooks of a job over one shared page context (which parses the page at most once). */
export async function runHooks(spec: ExtractionSpec, context: PageContext, syncBudgetMs = JOB_SYNC_BUDGET_MS): Promise<ExtractionResult> {
  // Regex hooks go to worker threads first, so they run while this thread handles the other hooks.
  const pending = new Map<number, Promise<HookResult>>()
  spec.hooks.forEach((hook, i) => {
    if (hook.type === 'regex') pending.set(i, runRegex(hook, context).catch((e: Error) => failed(hook, `hook failed: ${e.message}`)))
  })
  const deadline = performance.now() + syncBudgetMs
  const results = spec.hooks.map((hook) => (hook.type === 'regex' ? undefined : runSync(hook, context, deadline)))
  const hooks = await Promise.all(results.map((r, i) => r ?? pending.get(i)!))
  return { hooks }
}
