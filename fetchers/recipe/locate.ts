/**
 * Locator chains over one response, on the job extraction code: each locator becomes an extraction hook run by
 * the css, XPath or JSONPath runner on a shared PageContext. The first locator of a chain that matches wins, and
 * its index is reported, so a recipe's health shows when it lives on a fallback.
 */
import type { Element } from 'domhandler'
import { MAX_MAX_RESULTS, type ExtractionHook, type HookResult } from '../../domain/extraction.js'
import type { Locator } from '../../domain/recipe/types.js'
import { runCss } from '../extraction/css.js'
import { runJsonPath } from '../extraction/jsonpath.js'
import { PageContext } from '../extraction/page.js'
import { namespacesInScope } from '../extraction/xpath-dom.js'
import { runXPath } from '../extraction/xpath.js'

export interface Located {
  /** Every value the matching locator found (document order). */
  readonly values: readonly unknown[]
  /** Index of the locator in its chain that matched. */
  readonly matched: number
}

const hookOf = (locator: Locator): ExtractionHook => {
  const base = { hook_id: 'recipe', all_matches: true, max_results: MAX_MAX_RESULTS }
  if ('css' in locator) return { ...base, type: 'css', selector: locator.css, ...(locator.attribute !== undefined ? { attribute: locator.attribute } : {}) }
  if ('xpath' in locator) return { ...base, type: 'xpath', path: locator.xpath }
  return { ...base, type: 'jsonpath', path: locator.jsonpath }
}

const runHook = (hook: ExtractionHook, page: PageContext): HookResult =>
  hook.type === 'css' ? runCss(hook, page) : hook.type === 'xpath' ? runXPath(hook, page) : runJsonPath(hook, page)

/** Values that count as found: JSONPath may select a null (a field present but empty), which is no answer. */
const present = (values: readonly unknown[]) => values.filter((v) => v !== null && v !== undefined && v !== '')

/** The first locator of the chain that finds a value, or null when none does. */
export const locate = (chain: readonly Locator[], page: PageContext): Located | null => {
  for (const [matched, locator] of chain.entries()) {
    const result = runHook(hookOf(locator), page)
    const values = result.status === 'ok' ? present(result.result as unknown[]) : []
    if (values.length > 0) return { values, matched }
  }
  return null
}

/**
 * The items a list extractor walks, each as a page of its own so its fields' locators are relative to it: JSON
 * values for JSONPath, elements for CSS and XPath (element items are re-parsed from their markup).
 */
export const locateItems = (chain: readonly Locator[], page: PageContext): { readonly items: PageContext[]; readonly matched: number } | null => {
  for (const [matched, locator] of chain.entries()) {
    if ('jsonpath' in locator) {
      const found = locate([locator], page)
      if (found) return { matched, items: found.values.map((value) => new PageContext({ url: page.page.url, body: JSON.stringify(value), contentType: 'application/json' })) }
      continue
    }
    const $ = page.dom()
    if (!$) continue
    const elements = 'css' in locator ? ($(locator.css).toArray() as Element[]) : []
    if ('xpath' in locator) continue
    if (elements.length > 0) {
      return {
        matched,
        items: elements.map((el) => page.xml
          ? new PageContext({ url: page.page.url, html: $.html(el), contentType: 'application/xml' }, namespacesInScope(el))
          : new PageContext({ url: page.page.url, html: $.html(el) })),
      }
    }
  }
  return null
}
