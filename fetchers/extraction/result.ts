/** Turning what a hook found into its result entry (status, truncation, counts). */
import type { ExtractionHook, HookResult } from '../../domain/extraction.js'

/**
 * The entry for a hook whose locator found `items` (in document order): the first value, or up to
 * max_results values when all_matches. Only the values returned are computed.
 */
export function fromMatches<T>(hook: ExtractionHook, items: readonly T[], value: (item: T) => unknown): HookResult {
  const take = hook.all_matches ? hook.max_results : 1
  return fromValues(hook, items.slice(0, take).map(value), items.length)
}

/** The entry from the first `values` (at most max_results, or one) of `total` matches. */
export function fromValues(hook: ExtractionHook, values: readonly unknown[], total: number): HookResult {
  const entry = (status: HookResult['status'], result: unknown, truncated: boolean): HookResult =>
    ({ hook_id: hook.hook_id, type: hook.type, status, result, truncated, total_matched: total, skipped_records: 0 })
  if (total === 0) return entry('no_match', hook.all_matches ? [] : null, false)
  if (!hook.all_matches) return entry('ok', values[0], false)
  const taken = values.slice(0, hook.max_results)
  return entry('ok', taken, total > taken.length)
}

export function failed(hook: ExtractionHook, error: string): HookResult {
  return { hook_id: hook.hook_id, type: hook.type, status: 'error', result: null, truncated: false, total_matched: 0, skipped_records: 0, error }
}

/** Hooks that need markup answer this on JSON and other non-markup responses. */
export const NOT_MARKUP = 'page has no HTML or XML to query'
