/** `jsonpath` hooks: JSONPath over a JSON body, or over the JSON-LD blocks of an HTML page. */
import { JSONPath } from 'jsonpath-plus'
import { jsonPathForEngine, type ExtractionHook, type HookResult } from '../../domain/extraction.js'
import type { PageContext } from './page.js'
import { failed, fromMatches } from './result.js'

export function runJsonPath(hook: ExtractionHook, page: PageContext): HookResult {
  const input = page.jsonInput()
  if (!input.ok) return failed(hook, input.error)
  let matches: unknown[]
  try {
    // 'safe' evaluates filters with jsonpath-plus's own interpreter (no eval); a filter that throws on
    // one item (e.g. @.a.b where a is missing) skips that item instead of failing the hook.
    matches = JSONPath({ path: jsonPathForEngine(hook.path!), json: input.value as object, wrap: true, eval: 'safe', ignoreEvalErrors: true }) ?? []
  } catch (e) {
    return failed(hook, `JSONPath evaluation failed: ${(e as Error).message}`)
  }
  return fromMatches(hook, matches, (v) => v)
}
