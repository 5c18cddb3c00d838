/**
 * One page as the hooks of a job see it. Every derived form (DOM, XPath view, visible text,
 * JSON) is built lazily and at most once per job, then shared by all hooks.
 */
import { load, type CheerioAPI } from 'cheerio'
import type { Element } from 'domhandler'
import { indexElements, selectAll, type ElementIndex } from './element-index.js'
import { declaredPrefixes, XDocument } from './xpath-dom.js'
import { visibleText } from '../../domain/visible-text.js'
import { contentProblem, domProblem } from '../../domain/content-limits.js'

/** The page is over a cap of docs/limits.md: every hook that reads it ends with this message as its error. */
export class PageRefused extends Error {}

const withinCaps = (text: string): string => {
  const problem = contentProblem(text)
  if (problem) throw new PageRefused(problem)
  return text
}

export interface PageInput {
  readonly url: string
  /** Markup: the response text of an HTML/XML response, or the rendered DOM on browser tiers. */
  readonly html?: string
  /** The raw response text, whatever its type. */
  readonly body?: string
  readonly contentType?: string
}

export type JsonInput = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string }

/** XML that is not XHTML: parsed as XML so RSS `<link>` or sitemap elements are not treated as HTML. */
const isXml = (contentType: string | undefined) => !!contentType && /xml/i.test(contentType) && !/html/i.test(contentType)
const isJsonType = (contentType: string | undefined) => !!contentType && /json/i.test(contentType)

export class PageContext {
  readonly xml: boolean
  private $?: CheerioAPI
  private index?: ElementIndex
  private xpathView?: XDocument
  private text?: string
  private refused?: PageRefused
  private json?: JsonInput
  private prefixes?: Record<string, string>

  /**
   * `inScope`: for an XML fragment cut out of a larger document (a feed's `<item>` re-parsed alone), the namespaces
   * its ancestors declared there (`xmlns:dc`, `xmlns:media`, a default `xmlns`), so its XPath resolves them as in
   * the whole document.
   */
  constructor(readonly page: PageInput, private readonly inScope: Readonly<Record<string, string>> = {}) {
    this.xml = isXml(page.contentType)
  }

  /**
   * The parsed markup, or undefined when the page has none (e.g. a JSON API response). Throws PageRefused for a page
   * over the size, depth or element caps (content-limits.ts).
   */
  dom(): CheerioAPI | undefined {
    if (this.page.html === undefined) return undefined
    if (this.refused) throw this.refused
    if (!this.$) {
      const html = withinCaps(this.page.html)
      const $ = this.xml ? load(html, { xml: true }) : load(html)
      const problem = domProblem($.root()[0])
      // Kept, so the job's other hooks do not parse the page again to learn the same.
      if (problem) throw (this.refused = new PageRefused(problem))
      this.$ = $
    }
    return this.$
  }

  /**
   * The elements a CSS selector matches in the whole page, as `$(selector)` finds them. HTML pages answer from an
   * element index built on the first query; XML pages (case-sensitive names) ask cheerio.
   */
  select(selector: string): Element[] | undefined {
    const $ = this.dom()
    if (!$) return undefined
    if (!this.xml) this.index ??= indexElements($.root()[0])
    return selectAll($, this.index, selector)
  }

  xpathDocument(): XDocument | undefined {
    const $ = this.dom()
    if (!$) return undefined
    this.xpathView ??= new XDocument($.root()[0], this.xml, new Map(Object.entries(this.inScope)))
    return this.xpathView
  }

  /** Why the page was refused, once a hook has found out (the job's other hooks report it too). */
  refusal(): PageRefused | undefined {
    return this.refused
  }

  /** Prefixes an XML document declares, so `//dc:creator` works on feeds. */
  xmlPrefixes(): Record<string, string> {
    const $ = this.dom()
    if (this.prefixes === undefined) {
      const { '': _default, ...inherited } = this.inScope
      this.prefixes = this.xml && $ ? { ...inherited, ...declaredPrefixes($.root()[0]) } : {}
    }
    return this.prefixes
  }

  /** What regex hooks search: the visible text of markup, else the raw body. */
  corpus(): string {
    if (this.text === undefined) {
      const $ = this.dom()
      this.text = $ ? visibleText($.root()[0], this.xml) : withinCaps(this.page.body ?? '')
    }
    return this.text
  }

  /** What JSONPath hooks query: a JSON body, or for HTML pages the list of parsed JSON-LD blocks. */
  jsonInput(): JsonInput {
    this.json ??= this.readJson()
    return this.json
  }

  private readJson(): JsonInput {
    const { body, html, contentType } = this.page
    const text = withinCaps(body ?? html ?? '')
    if (isJsonType(contentType) || html === undefined) {
      const json = parseJson(text)
      // A browser shows a JSON response as a document (<pre>{...}</pre>); without the raw body, read its text.
      if (json.ok || body !== undefined || html === undefined) return json
      return parseJson(this.dom()?.root().text() ?? '')
    }
    // Untyped responses reach us as markup; take them as JSON when they parse as JSON.
    if (!contentType && /^\s*[[{]/.test(text)) {
      const json = parseJson(text)
      if (json.ok) return json
    }
    const $ = this.dom()
    if (!$ || this.xml) return { ok: false, error: 'page has neither a JSON body nor JSON-LD' }
    const blocks: unknown[] = []
    for (const el of this.select('script[type="application/ld+json" i]')!) {
      const block = parseLenient($(el).text())
      if (block !== undefined) blocks.push(block)
    }
    return { ok: true, value: blocks }
  }
}

function parseJson(text: string): JsonInput {
  try {
    return { ok: true, value: JSON.parse(text.replace(/^\uFEFF/, '')) }
  } catch {
    return { ok: false, error: 'response body is not valid JSON' }
  }
}

/** JSON-LD in the wild: HTML comment or CDATA wrappers, raw newlines in strings, trailing commas. */
function parseLenient(raw: string): unknown {
  const attempts = [
    (s: string) => s,
    (s: string) => s.replace(/^\s*(<!--|<!\[CDATA\[)/, '').replace(/(-->|\]\]>)\s*$/, '').replace(/[\r\n\t]+/g, ' '),
    (s: string) => s.replace(/,(\s*[}\]])/g, '$1'),
  ]
  let text = raw
  for (const fix of attempts) {
    text = fix(text)
    try {
      return JSON.parse(text)
    } catch {
      // try the next repair
    }
  }
  return undefined
}
