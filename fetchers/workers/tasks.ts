/**
 * The CPU-bound work on customer input that runs in worker threads (fair-pool.ts), never on the main thread: each
 * kind with its input and output, and `runTask`, which a worker (cpu-worker.ts) calls. Inputs and outputs are plain
 * data (they cross threads by structured clone; an output of bytes is moved).
 */
import { diffLines, type ContentDiff } from '../../domain/detection/diff.js'
import type { EngineArtifact } from '../engine.js'
import type { PageView } from '../page-views/index.js'
import { normalizeBody, normalizeHtml, normalizeJson, type Normalized } from '../../domain/detection/normalize.js'
import type { NoiseSteps } from '../../domain/detection/noise.js'
import type { ExtractionSpec } from '../../domain/extraction.js'
import { runExtraction, type PageInput } from '../extraction/index.js'
import { selectNodes } from '../extraction/select.js'
import type { TemplateScope } from '../../domain/recipe/template.js'
import type { Assertion, Locator } from '../../domain/recipe/types.js'
import type { Located } from '../recipe/locate.js'
import { classify, extractAll, locateAll, type ExtractedAll, type ExtractorInput, type RecipeHttpResponse } from '../recipe/selection.js'
import { needleIn, observe } from '../../domain/content-monitor/rules.js'
import type { Rule, Snapshot } from '../../domain/content-monitor/events.js'

const encoder = new TextEncoder()

export interface CpuTasks {
  /**
   * A job's extraction hooks over its page. The raw response comes as bytes (`bodyBytes`, decoded to the page's `body`
   * here, and to its `html` too when `bodyIsHtml`: the light tier's document is its response), and the result goes
   * back as the `json` artifact's bytes (moved, not copied): decoding a large page and writing out a large result are
   * work the main thread need not do.
   */
  readonly extract: {
    readonly input: { readonly spec: ExtractionSpec; readonly page: PageInput; readonly bodyBytes?: Uint8Array; readonly bodyIsHtml?: boolean }
    readonly output: Uint8Array
  }
  /** Change detection's modes `text` and `selector` over a page (domain/detection/normalize.ts). */
  readonly normalize_html: {
    readonly input: { readonly html: string; readonly selector: string | null; readonly ignoreSelectors: readonly string[]; readonly noise: NoiseSteps }
    readonly output: Normalized
  }
  /** Change detection's mode `text` over a raw response, read by its content type (normalizeBody). */
  readonly normalize_body: {
    readonly input: { readonly body: string; readonly contentType: string; readonly ignoreSelectors: readonly string[]; readonly noise: NoiseSteps }
    readonly output: Normalized
  }
  /** Change detection's mode `json`. */
  readonly normalize_json: { readonly input: { readonly body: string; readonly noise: NoiseSteps }; readonly output: Normalized }
  /** Change detection's diff of two normalized contents. */
  readonly diff: { readonly input: { readonly before: readonly string[]; readonly after: readonly string[] }; readonly output: ContentDiff }
  /**
   * A page's views made from its markup (page-views/index.ts): reader, text, links, page_metadata as artifacts. The
   * page comes as text (a browser's rendered DOM) or as the bytes of an HTML response, decoded here (the light tier).
   */
  readonly page_views: {
    readonly input: { readonly html?: string; readonly bodyBytes?: Uint8Array; readonly url: string; readonly want: readonly PageView[]; readonly maxChars: number }
    readonly output: EngineArtifact[]
  }
  /** A recipe response's assertions (fetchers/recipe/selection.ts). */
  readonly recipe_classify: {
    readonly input: { readonly assertions: readonly Assertion[]; readonly step: string; readonly response: RecipeHttpResponse; readonly scope: TemplateScope }
    readonly output: Assertion['outcome'] | null
  }
  /** A recipe step's locator chains over one response. */
  readonly recipe_locate: {
    readonly input: { readonly chains: readonly (readonly Locator[])[]; readonly response: RecipeHttpResponse; readonly scope: TemplateScope }
    readonly output: (Located | null)[]
  }
  /** A recipe run's extractors over its responses. */
  readonly recipe_extract: { readonly input: { readonly extractors: readonly ExtractorInput[]; readonly scope: TemplateScope }; readonly output: ExtractedAll }
  /** A content-monitor run's snapshot of an answer and its text rule's needle (domain/content-monitor/rules.ts). */
  readonly observe: {
    readonly input: { readonly body: string; readonly statusCode: number | null; readonly contentLength: number; readonly capturedAt: string; readonly rule: Rule }
    readonly output: { readonly snapshot: Snapshot; readonly needle_present: boolean | null }
  }
}

export type CpuTaskKind = keyof CpuTasks
export type CpuTask = { readonly [K in CpuTaskKind]: { readonly kind: K; readonly input: CpuTasks[K]['input'] } }[CpuTaskKind]

/** A selector over its time budget reads nothing, as a selector that matches nothing does. */
const withinSelectorBudget = (normalize: () => Normalized): Normalized => {
  try {
    return normalize()
  } catch {
    return { ok: false, reason: 'selector_missing' }
  }
}

const HANDLERS: { readonly [K in CpuTaskKind]: (input: CpuTasks[K]['input']) => CpuTasks[K]['output'] | Promise<CpuTasks[K]['output']> } = {
  extract: ({ spec, page, bodyBytes, bodyIsHtml }) => {
    const body = bodyBytes ? new TextDecoder().decode(bodyBytes) : undefined
    const input = body === undefined ? page : { ...page, body, ...(bodyIsHtml ? { html: body } : {}) }
    return encoder.encode(JSON.stringify(runExtraction(spec, input)))
  },
  normalize_html: ({ html, selector, ignoreSelectors, noise }) => withinSelectorBudget(() => normalizeHtml(html, { selector, ignoreSelectors, noise, select: selectNodes })),
  normalize_body: ({ body, contentType, ignoreSelectors, noise }) =>
    withinSelectorBudget(() => normalizeBody(body, contentType, { ignoreSelectors, noise, select: selectNodes })),
  normalize_json: ({ body, noise }) => normalizeJson(body, noise),
  diff: ({ before, after }) => diffLines(before, after),
  // Loaded on first use: Readability, linkedom and turndown would slow every worker's start for rarer artifacts.
  page_views: async ({ html, bodyBytes, url, want, maxChars }) =>
    (await import('../page-views/index.js')).pageViews(html ?? new TextDecoder().decode(bodyBytes), url, want, maxChars),
  recipe_classify: ({ assertions, step, response, scope }) => classify(assertions, step, response, scope),
  recipe_locate: ({ chains, response, scope }) => locateAll(chains, response, scope),
  recipe_extract: ({ extractors, scope }) => extractAll(extractors, scope),
  observe: ({ rule, ...page }) => {
    const observed = observe(page)
    return { snapshot: observed.snapshot, needle_present: needleIn(rule, observed.text) }
  },
}

export const runTask = async (task: CpuTask): Promise<unknown> => (HANDLERS[task.kind] as (input: unknown) => unknown)(task.input)
