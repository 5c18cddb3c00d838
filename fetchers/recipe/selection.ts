/**
 * The recipe runtime's work on page content (CSS, XPath and JSONPath locators, assertions that select, extractors):
 * plain data in and out, so it runs in the CPU pool's workers (fetchers/workers/tasks.ts), never on the main
 * thread; runtime.ts drives the steps and hands each of these to the pool (off-thread.ts).
 */
import type { RecipeOutcome } from '../../domain/recipe/outcomes.js'
import type { TemplateScope } from '../../domain/recipe/template.js'
import type { Assertion, Extractor, Locator } from '../../domain/recipe/types.js'
import { applyTransforms } from '../extraction/transforms.js'
import { PageContext } from '../extraction/page.js'
import { locate, locateItems, type Located } from './locate.js'

export interface RecipeHttpResponse {
  readonly status: number
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly url: string
}

/** How a run ended early: an outcome of SPEC 3.5 and why. */
export class Ended extends Error {
  constructor(readonly outcome: RecipeOutcome, readonly detail: string) { super(detail) }
}

export const pageOf = (response: RecipeHttpResponse) => {
  const contentType = response.headers['content-type']
  const markup = !contentType || /html|xml/i.test(contentType)
  return new PageContext({ url: response.url, body: response.body, ...(markup ? { html: response.body } : {}), ...(contentType ? { contentType } : {}) })
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

const holds = (assertion: Assertion, response: RecipeHttpResponse, page: () => PageContext, scope: TemplateScope): boolean => {
  if (assertion.status && !assertion.status.includes(response.status)) return false
  if (assertion.header) {
    const value = response.headers[assertion.header.name.toLowerCase()]
    if (value === undefined || (assertion.header.equals !== undefined && value !== assertion.header.equals)) return false
  }
  if (assertion.contains !== undefined && !response.body.includes(assertion.contains)) return false
  if (assertion.select) {
    const found = locate(assertion.select, page(), scope)
    if (!found) return false
    if (assertion.equals !== undefined && !sameJson(found.values[0], assertion.equals)) return false
  }
  return true
}

/** Whether classifying needs page content (an assertion that selects): only then is it worth a worker. */
export const classifyReadsPage = (assertions: readonly Assertion[]) => assertions.some((a) => a.select !== undefined)

/**
 * The outcome a response decides, if any: the first assertion that holds; without one, HTTP 429 is rate_limited
 * and any other 4xx or 5xx an upstream_error. `ok_empty` is not an ending: it lets lists be empty.
 */
export const classify = (assertions: readonly Assertion[], step: string, response: RecipeHttpResponse, scope: TemplateScope): Assertion['outcome'] | null => {
  let parsed: PageContext | undefined
  const page = () => (parsed ??= pageOf(response))
  const decided = assertions.find((a) => (a.step === undefined || a.step === step) && holds(a, response, page, scope))
  if (decided) return decided.outcome
  if (response.status === 429) return 'rate_limited'
  if (response.status >= 400) return 'upstream_error'
  return null
}

/** What each chain finds on one response (one parse for all of them). */
export const locateAll = (chains: readonly (readonly Locator[])[], response: RecipeHttpResponse, scope: TemplateScope): (Located | null)[] => {
  const page = pageOf(response)
  return chains.map((chain) => locate(chain, page, scope))
}

/** Where extractors record the locator that matched, and the values a `where` compares with. */
interface ExtractContext {
  readonly matched: Record<string, number>
  readonly scope: TemplateScope
}

const valueOf = (extractor: Extract<Extractor, { locators: unknown }>, page: PageContext, name: string, context: ExtractContext): unknown => {
  const { matched } = context
  const found = locate(extractor.locators, page, context.scope)
  if (!found) {
    if (extractor.required === false) return extractor.all && extractor.join === undefined ? [] : null
    throw new Ended('layout_changed', `nothing found for ${name}`)
  }
  matched[name] = found.matched
  const transformed = found.values.map((v) => (extractor.transform ? applyTransforms(v, extractor.transform, page.page.url) : v))
  if (!extractor.all) return transformed[0]
  return extractor.join === undefined ? transformed : transformed.filter((v) => typeof v === 'string').join(extractor.join)
}

/** What an extractor gives when its page comes from an optional step that was skipped. */
export const absent = (extractor: Extractor): unknown => ('each' in extractor || (extractor.all && extractor.join === undefined) ? [] : null)

/**
 * A value extractor reads the first response of its page; a list extractor walks the items of every response of
 * its page (all pages of a pagination). An empty list is an answer only with a positive "no results" marker
 * (an ok_empty assertion); otherwise the layout changed.
 */
const extract = (name: string, extractor: Extractor, pages: readonly PageContext[], empty: boolean, context: ExtractContext): unknown => {
  if (pages.length === 0) throw new Ended('error', `${name}: its page was never fetched`)
  if (!('each' in extractor)) return valueOf(extractor, pages[0]!, name, context)
  const rows: Record<string, unknown>[] = []
  for (const page of pages) {
    const items = locateItems(extractor.each, page, context.scope)
    if (!items) continue
    context.matched[name] = items.matched
    for (const item of items.items) {
      const row = Object.fromEntries(Object.entries(extractor.fields).map(([field, value]) => [field, valueOf(value, item, `${name}.${field}`, context)]))
      rows.push(extractor.position === undefined ? row : { [extractor.position]: rows.length + 1, ...row })
    }
  }
  if (rows.length === 0 && !empty) throw new Ended('layout_changed', `no items found for ${name} and no "no results" marker`)
  return rows
}

/** One extractor with the responses of its page; `skipped`: its page's optional step gave no answer. */
export interface ExtractorInput {
  readonly name: string
  readonly extractor: Extractor
  readonly responses: readonly RecipeHttpResponse[]
  /** The page's first response carried a "no results" marker. */
  readonly empty: boolean
  readonly skipped: boolean
}

export type ExtractedAll =
  | { readonly ok: true; readonly extracted: Record<string, unknown>; readonly matched: Record<string, number> }
  | { readonly ok: false; readonly outcome: RecipeOutcome; readonly detail: string; readonly matched: Record<string, number> }

/** Every extractor of a run, in order (each response parsed once); the first that ends the run stops it. */
export const extractAll = (extractors: readonly ExtractorInput[], scope: TemplateScope): ExtractedAll => {
  const matched: Record<string, number> = {}
  const parsed = new Map<RecipeHttpResponse, PageContext>()
  const pageFor = (response: RecipeHttpResponse) => {
    const page = parsed.get(response) ?? pageOf(response)
    parsed.set(response, page)
    return page
  }
  const extracted: Record<string, unknown> = {}
  try {
    for (const input of extractors) {
      extracted[input.name] = input.skipped ? absent(input.extractor) : extract(input.name, input.extractor, input.responses.map(pageFor), input.empty, { matched, scope })
    }
    return { ok: true, extracted, matched }
  } catch (e) {
    if (e instanceof Ended) return { ok: false, outcome: e.outcome, detail: e.detail, matched }
    throw e
  }
}
