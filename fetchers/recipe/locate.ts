/**
 * Locator chains over one response, on the job extraction code: each locator becomes an extraction hook run by
 * the css, XPath or JSONPath runner on a shared PageContext. The first locator of a chain that matches wins, and
 * its index is reported, so a recipe's health shows when it lives on a fallback. A locator's `json` reads JSON
 * embedded in the located text (cut between literal markers, parsed, never run) and its `where` keeps the JSON
 * values whose field equals a templated value.
 */
import type { Element } from 'domhandler'
import { JSONPath } from 'jsonpath-plus'
import { jsonPathForEngine, MAX_MAX_RESULTS, type ExtractionHook, type HookResult } from '../../domain/extraction.js'
import { renderText, type TemplateScope } from '../../domain/recipe/template.js'
import type { EmbeddedJson, Locator, Where } from '../../domain/recipe/types.js'
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

/** The locators an extraction hook runs (every kind but a body-only `json`). */
type HookLocator = Extract<Locator, { css: string }> | Extract<Locator, { xpath: string }> | Extract<Locator, { jsonpath: string }>

const hookOf = (locator: HookLocator): ExtractionHook => {
  const base = { hook_id: 'recipe', all_matches: true, max_results: MAX_MAX_RESULTS }
  if ('css' in locator) return { ...base, type: 'css', selector: locator.css, ...(locator.attribute !== undefined ? { attribute: locator.attribute } : {}) }
  if ('xpath' in locator) return { ...base, type: 'xpath', path: locator.xpath }
  return { ...base, type: 'jsonpath', path: locator.jsonpath }
}

const runHook = (hook: ExtractionHook, page: PageContext): HookResult =>
  hook.type === 'css' ? runCss(hook, page) : hook.type === 'xpath' ? runXPath(hook, page) : runJsonPath(hook, page)

/** Values that count as found: JSONPath may select a null (a field present but empty), which is no answer. */
const present = (values: readonly unknown[]) => values.filter((v) => v !== null && v !== undefined && v !== '')

const jsonPathOn = (path: string, value: unknown): unknown[] => {
  if (value === null || typeof value !== 'object') return path === '$' ? [value] : []
  try {
    return JSONPath({ path: jsonPathForEngine(path), json: value, wrap: true, eval: 'safe', ignoreEvalErrors: true }) ?? []
  } catch {
    return []
  }
}

/** The text between the markers (the first `after`, then the first `before` past it); null when one is missing. */
const cut = (text: string, json: EmbeddedJson): string | null => {
  let start = 0
  if (json.after !== undefined) {
    const at = text.indexOf(json.after)
    if (at < 0) return null
    start = at + json.after.length
  }
  let end = text.length
  if (json.before !== undefined) {
    end = text.indexOf(json.before, start)
    if (end < 0) return null
  }
  return text.slice(start, end)
}

/** The values an embedded-JSON chain finds in one text: none when the text is not one or does not parse. */
const embedded = (text: unknown, json: EmbeddedJson): unknown[] => {
  if (typeof text !== 'string') return []
  const source = cut(text, json)
  if (source === null) return []
  let parsed: unknown
  try { parsed = JSON.parse(source) } catch { return [] }
  const found = jsonPathOn(json.jsonpath, parsed)
  return json.json ? found.flatMap((value) => embedded(value, json.json!)) : found
}

/** The texts a locator reads embedded JSON from: the body, the elements' raw text (scripts stay whole) or strings. */
const textsOf = (locator: Locator, page: PageContext): unknown[] => {
  if ('css' in locator && locator.attribute === undefined) {
    const $ = page.dom()
    return $ ? $(locator.css).toArray().slice(0, MAX_MAX_RESULTS).map((el) => $(el as Element).text()) : []
  }
  if (!('css' in locator) && !('jsonpath' in locator)) return [page.page.body ?? page.page.html ?? '']
  const result = runHook(hookOf(locator as HookLocator), page)
  return result.status === 'ok' ? (result.result as unknown[]) : []
}

/** Keeps the values whose `where` path finds the rendered value (an absent optional value keeps them all), read by `then`. */
const filtered = (values: unknown[], where: Where | undefined, scope: TemplateScope): unknown[] => {
  if (!where) return values
  const wanted = renderText(where.equals, scope)
  const kept = wanted.ok
    ? values.filter((value) => {
      const found = present(jsonPathOn(where.jsonpath, value)).some((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v)) === wanted.value)
      return where.not ? !found : found
    })
    : values
  return where.then === undefined ? kept : kept.flatMap((value) => jsonPathOn(where.then!, value))
}

/** Every value one locator finds. */
const valuesOf = (locator: Locator, page: PageContext, scope: TemplateScope): unknown[] => {
  const json = 'json' in locator ? locator.json : undefined
  let values: unknown[]
  if (json) values = textsOf(locator, page).flatMap((text) => embedded(text, json))
  else {
    const result = runHook(hookOf(locator as HookLocator), page)
    values = result.status === 'ok' ? (result.result as unknown[]) : []
  }
  return present(filtered(values, 'where' in locator ? locator.where : undefined, scope)).slice(0, MAX_MAX_RESULTS)
}

/** The first locator of the chain that finds a value, or null when none does. */
export const locate = (chain: readonly Locator[], page: PageContext, scope: TemplateScope): Located | null => {
  for (const [matched, locator] of chain.entries()) {
    const values = valuesOf(locator, page, scope)
    if (values.length > 0) return { values, matched }
  }
  return null
}

/** Locators whose values are JSON (items become JSON pages); the others find elements. */
const readsJson = (locator: Locator) => 'jsonpath' in locator || 'json' in locator

/**
 * The items a list extractor walks, each as a page of its own so its fields' locators are relative to it: JSON
 * values for JSONPath and embedded JSON, elements for CSS and XPath (element items are re-parsed from their markup).
 */
export const locateItems = (chain: readonly Locator[], page: PageContext, scope: TemplateScope): { readonly items: PageContext[]; readonly matched: number } | null => {
  for (const [matched, locator] of chain.entries()) {
    if (readsJson(locator)) {
      const found = locate([locator], page, scope)
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
