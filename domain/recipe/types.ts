/**
 * The recipe language (SPEC 2.10): a recipe is data. These types mirror the meta-schema (meta-schema.ts), which is
 * what decides whether a document is a recipe; the types only name what the runtime reads.
 */
import type { TransformName } from '../extraction.js'
import type { JobType } from '../job/spec.js'
import type { RecipeOutcome } from './outcomes.js'

/**
 * JSON embedded in text: the text is cut after the first `after` and before the first `before` that follows it
 * (literal markers, e.g. an anti-XSSI prefix or a script's `data:` … `, sideChannel`), parsed as JSON, never run,
 * and `jsonpath` applies to the parsed value; `json` nests, for JSON inside a string of that JSON.
 */
export interface EmbeddedJson {
  readonly after?: string
  readonly before?: string
  readonly jsonpath: string
  readonly json?: EmbeddedJson
}

/**
 * Keeps the located JSON values for which one of the values `jsonpath` finds equals `equals` (with `not`: none
 * does). `equals` is a template: `{input.x}` may choose the item; an absent optional value keeps every value. Then
 * `then` (a JSONPath) reads each kept value, e.g. the URL of the chosen track. The input is compared with data,
 * never put into an expression.
 */
export interface Where { readonly jsonpath: string; readonly equals: string; readonly not?: boolean; readonly then?: string }

/** Options every locator kind may carry (see EmbeddedJson and Where). */
interface LocatorOptions { readonly json?: EmbeddedJson; readonly where?: Where }

/**
 * One way to find a value; a locator chain tries them in order and the first that matches wins. A locator of only
 * `json` reads the response body as text (a JSON answer behind an anti-XSSI prefix); on `css` (the elements' raw
 * text, or the attribute) and `jsonpath` (string values) it reads the located strings. XPath gives collapsed text,
 * so it takes neither option.
 */
export type Locator =
  | ({ readonly css: string; readonly attribute?: string } & LocatorOptions)
  | { readonly xpath: string }
  | ({ readonly jsonpath: string } & LocatorOptions)
  | { readonly json: EmbeddedJson; readonly where?: Where }

/** A request whose URL, query, JSON body and form values may hold `{input.x}` / `{vars.x}` / `{page}` placeholders. */
export interface RequestTemplate {
  readonly method?: 'GET' | 'POST'
  readonly url: string
  readonly query?: Readonly<Record<string, string>>
  /** Taken literally: placeholders are never filled in headers. */
  readonly headers?: Readonly<Record<string, string>>
  readonly json?: unknown
  readonly form?: Readonly<Record<string, string>>
}

/** A value a step binds for later steps' templates (`{vars.name}`), located in that step's response. */
export interface Binding { readonly locators: readonly Locator[] }

export type RequestStep = {
  readonly request: RequestTemplate & {
    readonly as?: string
    readonly bind?: Readonly<Record<string, Binding>>
    /**
     * A step for fields the output can go without: when its fetch fails or its answer is classified (blocked,
     * not_found, ...), the run goes on and the extractors reading its page give null (lists: empty).
     */
    readonly optional?: boolean
  }
}
export type PaginateStep = {
  readonly paginate: RequestTemplate & {
    readonly as?: string
    /** First value of `{page}` (default 1). */
    readonly start?: number
    /** How much `{page}` grows from one page to the next (default 1; the page size for offset pagination). */
    readonly page_step?: number
    /**
     * Cursor pagination: where a page names the next one. `{cursor}` is absent on the first page (a query entry that
     * is only `{cursor}` is left out), then the value located here; no cursor, or the same one again, ends it.
     */
    readonly cursor?: readonly Locator[]
    /** The items of one page; fewer than `page_size` of them ends the pagination. */
    readonly items: readonly Locator[]
    readonly page_size: number
    /** The highest `{page}` the site serves (its own page-depth limit): pagination stops there whatever max_pages allows. */
    readonly last_page?: number
  }
}
/** Fetches the URL a previous response names (its host must be one of the recipe's hosts). */
export type FollowStep = {
  readonly follow: {
    readonly page?: string
    readonly locators: readonly Locator[]
    readonly as: string
    readonly headers?: Readonly<Record<string, string>>
    /** Query parameters set on the followed URL (replacing one of the same name); values may hold placeholders. */
    readonly query?: Readonly<Record<string, string>>
  }
}

/** Elements a browser step acts on: CSS or XPath, a fallback chain like every locator. */
export type ElementChain = readonly ({ readonly css: string } | { readonly xpath: string })[]

export type BrowserStep =
  | { readonly navigate: { readonly url: string; readonly query?: Readonly<Record<string, string>>; readonly as?: string } }
  | { readonly click: { readonly locators: ElementChain; readonly timeout_ms?: number } }
  /** `value` may hold placeholders: it is typed into the field, never put into a selector or a script. */
  | { readonly fill: { readonly locators: ElementChain; readonly value: string; readonly timeout_ms?: number } }
  | { readonly scroll: { readonly direction: 'down' } }
  | { readonly wait_for_selector: { readonly locators: ElementChain; readonly timeout_ms?: number } }
  | { readonly dismiss_consent: Record<string, never> }

export type Step = RequestStep | PaginateStep | FollowStep | BrowserStep

/** Classifies a response: every condition given must hold. The first assertion that holds decides. */
export interface Assertion {
  readonly outcome: Extract<RecipeOutcome, 'ok_empty' | 'not_found' | 'blocked' | 'rate_limited' | 'upstream_error'>
  /** The step (its `as`) whose responses this assertion looks at; every step when absent. */
  readonly step?: string
  readonly status?: readonly number[]
  readonly header?: { readonly name: string; readonly equals?: string }
  readonly select?: readonly Locator[]
  /** With `select`: the located value equals this. Without `equals`, the locator matching at all is the condition. */
  readonly equals?: unknown
  /** A body substring (for block pages). */
  readonly contains?: string
}

export interface ValueExtractor {
  readonly page?: string
  readonly locators: readonly Locator[]
  readonly transform?: readonly TransformName[]
  /** All matches as a list (of the first locator that matches). */
  readonly all?: boolean
  /** With `all`: the matches (strings) joined into one text with this separator, e.g. a caption's word pieces. */
  readonly join?: string
  /** A missing required value means the layout changed; optional ones become null. Default true. */
  readonly required?: boolean
}
export interface ListExtractor {
  readonly page?: string
  /** The items (JSON values or elements); each field's locators are relative to one item. */
  readonly each: readonly Locator[]
  readonly fields: Readonly<Record<string, ValueExtractor>>
  /** A field that gets each item's 1-based position in the whole list, across pages (a search result's rank). */
  readonly position?: string
}
export type Extractor = ValueExtractor | ListExtractor

/**
 * A site's own word for an input value: `{vars.<name>}` becomes `map[input.<from>]` before the first step (absent
 * when the input is absent), so an input can speak the caller's language ("tablet") and the URL the site's. With
 * `present` instead of `map`, it is that template filled with the input (for a value the site wants wrapped, e.g.
 * a quoted token inside a body), and `absent` is its value when the input is absent (e.g. `null`).
 */
export type Lookup =
  | { readonly from: string; readonly map: Readonly<Record<string, string>>; readonly absent?: string }
  | { readonly from: string; readonly present: string; readonly absent?: string }

/** A variable taken from an input value by a regular expression: its first capture group (`{vars.name}`). */
export interface Derivation {
  readonly input: string
  readonly pattern: string
}

export interface Implementation {
  readonly impl: number
  readonly lookups?: Readonly<Record<string, Lookup>>
  /** Variables read out of input values before the first step (e.g. the parts of a URL a user pasted). */
  readonly derive?: Readonly<Record<string, Derivation>>
  readonly steps: readonly Step[]
  readonly assertions: readonly Assertion[]
  readonly extract: Readonly<Record<string, Extractor>>
  /** The output: strings `$extract.x`, `$input.x`, `$vars.x` and `$attribution` are replaced by those values. */
  readonly output: unknown
}

export type BillingUnit = { readonly unit: 'run' } | { readonly unit: 'page'; readonly per: string }

export interface Contract {
  readonly contract: number
  readonly engine: JobType
  /** Recipe multiplier on the engine's credit weight. */
  readonly multiplier: number
  /** ceil(engine weight × multiplier); the linter checks it. */
  readonly credits_per_unit: number
  readonly billing: BillingUnit
  readonly sunset_at?: string
  readonly input_schema: Readonly<Record<string, unknown>>
  readonly output_schema: Readonly<Record<string, unknown>>
  readonly example: { readonly input: Readonly<Record<string, unknown>>; readonly output: unknown }
  readonly implementation: Implementation
}

export interface Recipe {
  readonly slug: string
  readonly title: string
  readonly category: string
  /** The site and endpoint it reads, for the README's recipe table (scripts/recipe-table.ts); never served by the API. */
  readonly site?: string
  /** Why this engine, limits, absent outcomes: the table's notes column. */
  readonly notes?: string
  readonly status: 'beta' | 'ga'
  /** Origins (scheme://host[:port]) the recipe may reach; every URL it fetches is on one of them. */
  readonly hosts: readonly string[]
  readonly attribution?: { readonly license: string; readonly source: string; readonly notice: string }
  /** Temporarily disabled: runs answer 409 recipe_disabled. */
  readonly disabled?: boolean
  readonly contracts: readonly Contract[]
}
