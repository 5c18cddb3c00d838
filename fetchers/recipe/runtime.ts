/**
 * The recipe runtime: runs light steps (`request`, `paginate`, `follow`) through a fetch function (the light engine
 * behind the egress gateway) and browser steps (`navigate`, `click`, `fill`, `scroll`, `wait_for_selector`,
 * `dismiss_consent`) on a scripted browser page, classifies every response (and every rendered document) with the
 * recipe's assertions, extracts with locator chains, builds the output and validates it against the contract's
 * output schema. It never throws for what a site does: every ending is an outcome of SPEC 3.5.
 */
import type { RecipeOutcome } from '../../domain/recipe/outcomes.js'
import { schemaProblems } from '../../domain/recipe/schemas.js'
import { renderForm, renderJson, renderQuery, renderText, renderUrl, type TemplateScope } from '../../domain/recipe/template.js'
import { stepName } from '../../domain/recipe/lint.js'
import type { Contract, Derivation, Locator, Recipe, RequestTemplate, Step } from '../../domain/recipe/types.js'
import type { PageSnapshot, ScriptedPage } from '../browser/scripted-page.js'
import { offThreadSelection, type RecipeSelection } from './off-thread.js'
import { Ended, type RecipeHttpResponse } from './selection.js'

export type { RecipeHttpResponse } from './selection.js'

export interface RecipeHttpRequest {
  readonly method: 'GET' | 'POST'
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
}
export type FetchAnswer =
  | { readonly ok: true; readonly response: RecipeHttpResponse }
  | { readonly ok: false; readonly outcome: 'timeout' | 'error'; readonly message: string }
export type RecipeFetch = (request: RecipeHttpRequest) => Promise<FetchAnswer>

export interface RecipeRunRequest {
  readonly recipe: Recipe
  readonly contract: Contract
  /** Validated against the input schema, defaults filled. */
  readonly input: Readonly<Record<string, unknown>>
  /** Pages a paginate step may fetch. */
  readonly maxPages: number
  readonly fetch: RecipeFetch
  /** The page browser steps drive (contracts on a browser engine); without it they end the run in `error`. */
  readonly browser?: ScriptedPage
  /**
   * Where the work on page content runs: the CPU pool, in the lane of `org` (the job's organization), each step
   * with a hard deadline (off-thread.ts). Default: the pool, in a lane of its own.
   */
  readonly selection?: RecipeSelection
}

/** How long `wait_for_selector` waits when the step names no timeout_ms. */
export const DEFAULT_WAIT_MS = 10_000

export interface RecipeRunResult {
  readonly outcome: RecipeOutcome
  readonly output?: unknown
  /** Responses fetched (what page-billed contracts charge). */
  readonly pages: number
  /** Why the run ended as it did (for outcomes other than ok); schema_invalid names the first failing JSON pointer. */
  readonly detail: string | null
  /** For every extracted field (`name` or `list.field`), the index of the locator of its chain that matched. */
  readonly matched: Readonly<Record<string, number>>
}

export const runRecipe = async (run: RecipeRunRequest): Promise<RecipeRunResult> => {
  const { recipe, contract } = run
  const selection = run.selection ?? offThreadSelection('recipe')
  const impl = contract.implementation
  const vars: Record<string, unknown> = {}
  for (const [name, lookup] of Object.entries(impl.lookups ?? {})) {
    const value = run.input[lookup.from]
    if (value === undefined || value === null) {
      if (lookup.absent !== undefined) vars[name] = lookup.absent
    } else if ('present' in lookup) {
      const filled = renderText(lookup.present, { input: run.input, vars: {} })
      if (filled.ok) vars[name] = filled.value
    } else if (typeof value === 'string' && Object.prototype.hasOwnProperty.call(lookup.map, value)) vars[name] = lookup.map[value]
  }
  const pages = new Map<string, RecipeHttpResponse[]>()
  const matched: Record<string, number> = {}
  let fetchedCount = 0
  /** Steps whose responses carried a positive "no results" marker (an ok_empty assertion). */
  const emptySteps = new Set<string>()
  /** Optional steps whose fetch did not give an answer: their values are absent (null, or empty lists). */
  const skippedSteps = new Set<string>()

  const scope = (page?: number, cursor?: string): TemplateScope =>
    ({ input: run.input, vars, ...(page !== undefined ? { page } : {}), ...(cursor !== undefined ? { cursor } : {}) })

  /** A response the assertions accepted (an ok_empty marker is noted); any other classification ends the run. */
  const classified = async (response: RecipeHttpResponse, step: string, what: string): Promise<RecipeHttpResponse> => {
    const outcome = await selection.classify(impl.assertions, step, response, scope())
    if (outcome === 'ok_empty') emptySteps.add(step)
    else if (outcome !== null) throw new Ended(outcome, `${step}: ${what} ${new URL(response.url).pathname} answered HTTP ${response.status}, classified ${outcome}`)
    return response
  }
  const locate = async (chain: readonly Locator[], response: RecipeHttpResponse) => (await selection.locate([chain], response, scope()))[0]!

  const fetchOne = async (request: RecipeHttpRequest, step: string): Promise<RecipeHttpResponse> => {
    const answer = await run.fetch(request)
    fetchedCount += 1
    if (!answer.ok) throw new Ended(answer.outcome, answer.message)
    return classified(answer.response, step, request.method)
  }

  // Browser steps: the page last opened by navigate, and whether clicks or fills changed it since it was read.
  let opened: { name: string; url: string; changed: boolean } | null = null
  const browser = (step: string): ScriptedPage => {
    if (!run.browser) throw new Ended('error', `${step} needs a browser engine`)
    return run.browser
  }
  const rendered = (snapshot: PageSnapshot, url: string): RecipeHttpResponse =>
    ({ status: snapshot.status, headers: { ...snapshot.headers, 'content-type': 'text/html' }, body: snapshot.html, url })
  /** The page as the steps left it replaces what navigate read, and is classified again (a "no results" marker, a block page). */
  const settle = async () => {
    if (!opened?.changed) return
    const page = opened
    pages.set(page.name, [await classified(rendered(await browser(page.name).snapshot(), page.url), page.name, 'the page at')])
    page.changed = false
  }
  const openPage = (step: string) => {
    if (!opened) throw new Ended('error', `${step}: a browser step before any navigate`)
    return opened
  }
  const onElement = async (step: string, found: Promise<number | null>, what: string) => {
    const page = openPage(step)
    const index = await found
    if (index === null) throw new Ended('layout_changed', `${step}: ${what} found no element to act on within its time (none of the locators matched, or the element stayed covered or disabled)`)
    matched[step] = index
    page.changed = true
  }

  const build = (template: RequestTemplate, page?: number, cursor?: string): RecipeHttpRequest => {
    const url = renderUrl(template.url, template.query, scope(page, cursor), recipe.hosts)
    if (!url.ok) throw new Ended('error', url.error)
    const headers: Record<string, string> = { ...template.headers }
    let body: string | undefined
    if (template.json !== undefined) {
      const json = renderJson(template.json, scope(page))
      if (!json.ok) throw new Ended('error', json.error)
      body = JSON.stringify(json.value)
      headers['content-type'] ??= 'application/json'
    } else if (template.form !== undefined) {
      const form = renderForm(template.form, scope(page))
      if (!form.ok) throw new Ended('error', form.error)
      body = form.value
      headers['content-type'] ??= 'application/x-www-form-urlencoded'
    }
    return { method: template.method ?? (body === undefined ? 'GET' : 'POST'), url: url.value, headers, ...(body !== undefined ? { body } : {}) }
  }

  const runStep = async (step: Step, index: number) => {
    const name = stepName(step, index)
    if ('request' in step) {
      let fetched: RecipeHttpResponse
      try {
        fetched = await fetchOne(build(step.request), name)
      } catch (e) {
        if (!(step.request.optional && e instanceof Ended)) throw e
        skippedSteps.add(name)
        pages.set(name, [])
        return
      }
      pages.set(name, [fetched])
      // One at a time: a binding's `where` may read a variable bound just before it.
      for (const [variable, binding] of Object.entries(step.request.bind ?? {})) {
        const found = await locate(binding.locators, fetched)
        if (!found) throw new Ended('layout_changed', `${name}: nothing found for ${variable}`)
        vars[variable] = found.values[0]
      }
    } else if ('paginate' in step) {
      const { start = 1, page_step: pageStep = 1, cursor: cursorAt } = step.paginate
      const fetchedPages: RecipeHttpResponse[] = []
      pages.set(name, fetchedPages)
      let cursor: string | undefined
      const sitePages = step.paginate.last_page === undefined ? Infinity : Math.floor((step.paginate.last_page - start) / pageStep) + 1
      for (let n = 0; n < Math.min(run.maxPages, sitePages); n += 1) {
        const fetched = await fetchOne(build(step.paginate, start + n * pageStep, cursor), name)
        fetchedPages.push(fetched)
        // The items and the cursor of a page in one task.
        const [items, cursorFound] = await selection.locate(cursorAt ? [step.paginate.items, cursorAt] : [step.paginate.items], fetched, scope())
        if ((items?.values.length ?? 0) < step.paginate.page_size) break
        if (cursorAt) {
          const next = cursorOf(cursorFound?.values[0])
          if (next === undefined || next === cursor) break
          cursor = next
        }
      }
    } else if ('follow' in step) {
      const from = pages.get(step.follow.page ?? 'main')?.[0]
      const found = from ? await locate(step.follow.locators, from) : null
      if (!found || typeof found.values[0] !== 'string') throw new Ended('layout_changed', `${name}: no URL to follow`)
      let url: URL
      try { url = new URL(found.values[0], from!.url) } catch { throw new Ended('layout_changed', `${name}: the URL to follow is not a URL`) }
      if (!recipe.hosts.includes(url.origin)) throw new Ended('error', `${name}: the URL to follow leaves the recipe's hosts`)
      const query = renderQuery(step.follow.query ?? {}, scope())
      if (!query.ok) throw new Ended('error', `${name}: ${query.error}`)
      for (const [parameter, value] of query.value) url.searchParams.set(parameter, value)
      pages.set(step.follow.as, [await fetchOne({ method: 'GET', url: url.href, headers: { ...step.follow.headers } }, step.follow.as)])
    } else if ('navigate' in step) {
      const url = renderUrl(step.navigate.url, step.navigate.query, scope(), recipe.hosts)
      if (!url.ok) throw new Ended('error', url.error)
      const page = browser(name)
      await settle()
      const answer = await page.navigate(url.value)
      fetchedCount += 1
      if (!answer.ok) throw new Ended(answer.outcome, answer.message)
      opened = { name, url: url.value, changed: false }
      pages.set(name, [await classified(rendered(answer.snapshot, url.value), name, 'GET')])
    } else if ('click' in step) {
      openPage(name)
      await onElement(name, browser(name).click(step.click.locators, step.click.timeout_ms), 'click')
    } else if ('fill' in step) {
      openPage(name)
      const value = renderText(step.fill.value, scope())
      if (!value.ok) throw new Ended('error', `${name}: ${value.error}`)
      await onElement(name, browser(name).fill(step.fill.locators, value.value, step.fill.timeout_ms), 'fill')
    } else if ('wait_for_selector' in step) {
      openPage(name)
      await onElement(name, browser(name).waitFor(step.wait_for_selector.locators, step.wait_for_selector.timeout_ms ?? DEFAULT_WAIT_MS), 'wait_for_selector')
    } else if ('scroll' in step) {
      openPage(name).changed = true
      await browser(name).scroll()
    } else {
      openPage(name).changed = true
      await browser(name).dismissConsent()
    }
  }

  try {
    for (const [name, derivation] of Object.entries(impl.derive ?? {})) vars[name] = derived(name, derivation, run.input)
    for (const [index, step] of impl.steps.entries()) await runStep(step, index)
    await settle()
    const firstPage = stepName(impl.steps[0]!, 0)
    const done = await selection.extract(Object.entries(impl.extract).map(([name, extractor]) => {
      const page = extractor.page ?? firstPage
      return { name, extractor, responses: pages.get(page) ?? [], empty: emptySteps.has(page), skipped: skippedSteps.has(page) }
    }), scope())
    Object.assign(matched, done.matched)
    if (!done.ok) throw new Ended(done.outcome, done.detail)
    const { extracted } = done
    const output = fillOutput(impl.output, { extract: extracted, input: run.input, vars, attribution: recipe.attribution ?? null })
    const problems = schemaProblems(contract.output_schema, output)
    if (problems.length > 0) return { outcome: 'schema_invalid', pages: fetchedCount, detail: `${problems[0]!.pointer || '/'}: ${problems[0]!.message}`, matched }
    // ok_empty needs the marker on the first step's answer and no items at all: a later empty page of a pagination
    // is not an empty answer, nor is an empty sub-list (no dependencies) read from another step.
    const lists = Object.entries(impl.extract).filter(([, e]) => 'each' in e).map(([name]) => extracted[name] as unknown[])
    const noItems = lists.every((rows) => rows.length === 0)
    return { outcome: emptySteps.has(firstPage) && noItems ? 'ok_empty' : 'ok', output, pages: fetchedCount, detail: null, matched }
  } catch (e) {
    if (e instanceof Ended) return { outcome: e.outcome, pages: fetchedCount, detail: e.detail, matched }
    return { outcome: 'error', pages: fetchedCount, detail: `the recipe runtime failed: ${(e as Error).message}`, matched }
  }
}

/** The next page's cursor as a page names it: a non-empty string or a number; anything else means there is no next page. */
const cursorOf = (value: unknown): string | undefined => {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** A derived variable: the first capture group of its pattern in the input value (the input schema should ensure a match). */
const derived = (name: string, derivation: Derivation, input: Readonly<Record<string, unknown>>): string => {
  const value = input[derivation.input]
  const match = typeof value === 'string' ? new RegExp(derivation.pattern).exec(value) : null
  if (match?.[1] === undefined) throw new Ended('error', `derive ${name}: input ${derivation.input} does not match its pattern`)
  return match[1]
}

interface OutputScope {
  readonly extract: Readonly<Record<string, unknown>>
  readonly input: Readonly<Record<string, unknown>>
  readonly vars: Readonly<Record<string, unknown>>
  readonly attribution: unknown
}

const REFERENCE = /^\$(extract|input|vars)\.([a-z][a-z0-9_]*)$/

/** The output template with its references replaced (absent values become null). */
const fillOutput = (template: unknown, scope: OutputScope): unknown => {
  if (typeof template === 'string') {
    if (template === '$attribution') return scope.attribution
    const reference = REFERENCE.exec(template)
    if (!reference) {
      const text = renderText(template, { input: scope.input, vars: scope.vars })
      if (!text.ok) throw new Ended('error', `output: ${text.error}`)
      return text.value
    }
    const from = scope[reference[1] as 'extract' | 'input' | 'vars']
    return Object.prototype.hasOwnProperty.call(from, reference[2]!) ? from[reference[2]!] ?? null : null
  }
  if (Array.isArray(template)) return template.map((item) => fillOutput(item, scope))
  if (typeof template === 'object' && template !== null) return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fillOutput(v, scope)]))
  return template
}

