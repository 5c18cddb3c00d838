/** `regex` hooks: a pattern over the page's visible text (or the raw body of non-markup responses). */
import { REGEX_FLAGS, type ExtractionHook, type HookResult } from '../../domain/extraction.js'
import type { PageContext } from './page.js'
import { regexPool } from './regex-pool.js'
import { failed, fromValues } from './result.js'

export async function runRegex(hook: ExtractionHook, page: PageContext): Promise<HookResult> {
  const outcome = await regexPool().search(page.corpus(), {
    pattern: hook.pattern!,
    flags: `${REGEX_FLAGS}g`,
    group: hook.group ?? 0,
    take: hook.all_matches ? hook.max_results : 1,
  })
  if ('error' in outcome) return failed(hook, outcome.error)
  return fromValues(hook, outcome.values, outcome.total)
}
