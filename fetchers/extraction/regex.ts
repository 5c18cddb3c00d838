/**
 * `regex` hooks: a pattern over the page's visible text (or the raw body of non-markup responses), matched with RE2
 * semantics (domain/hook-pattern.ts), so its time is linear in the text. The hooks of one job share a regex budget
 * (REGEX_JOB_BUDGET_MS): a hook that starts past it, or runs past it, ends with an error, and later regex hooks are
 * not run. Runs inside an extraction worker (fetchers/workers), whose deadline bounds everything else.
 */
import type { ExtractionHook, HookResult } from '../../domain/extraction.js'
import { compileHookPattern } from '../../domain/hook-pattern.js'
import { PageRefused, type PageContext } from './page.js'
import { failed, fromValues } from './result.js'

/** Regex time one job's hooks may take together. */
export const REGEX_JOB_BUDGET_MS = 5_000
/** Matches found between two looks at the clock. */
const CHECK_EVERY = 64

/** The time left for a job's regex hooks; each hook draws on it. */
export class RegexBudget {
  private used = 0
  constructor(private readonly totalMs = REGEX_JOB_BUDGET_MS, private readonly now: () => number = () => performance.now()) {}
  run(hook: ExtractionHook, page: PageContext): HookResult {
    if (this.used >= this.totalMs) return failed(hook, `the job's regex budget of ${this.totalMs} ms was used up by earlier regex hooks`)
    const started = this.now()
    const deadline = started + this.totalMs - this.used
    try {
      return runRegex(hook, page, () => this.now() > deadline) ?? failed(hook, `regex hooks exceeded the job's regex budget of ${this.totalMs} ms`)
    } catch (e) {
      if (e instanceof PageRefused) throw e // the page's refusal, reported as every hook's
      return failed(hook, `pattern failed: ${(e as Error).message}`)
    } finally {
      this.used += this.now() - started
    }
  }
}

/** The hook's result, or undefined when `overBudget` said stop. */
function runRegex(hook: ExtractionHook, page: PageContext, overBudget: () => boolean): HookResult | undefined {
  const text = page.corpus()
  const matcher = compileHookPattern(hook.pattern!).matcher(text)
  const take = hook.all_matches ? hook.max_results : 1
  const group = hook.group ?? 0
  const values: Array<string | null> = []
  let total = 0
  // find() steps past an empty match, as String.prototype.matchAll does.
  while (matcher.find()) {
    total++
    if (values.length < take) values.push(matcher.group(group))
    if (total % CHECK_EVERY === 0 && overBudget()) return undefined
  }
  if (overBudget()) return undefined
  return fromValues(hook, values, total)
}
