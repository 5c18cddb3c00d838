/**
 * The one normalization of change detection (ARCHITECTURE.md, "second half"): fingerprint, diff and change ratio all
 * read the lines it returns, so what is fingerprinted is exactly what the user sees diffed. Changing any rule here
 * means bumping NORMALIZATION_VERSION: a monitor whose baseline has an older version re-baselines instead of alerting.
 */
import { load, type CheerioAPI } from 'cheerio'
import type { AnyNode } from 'domhandler'
import { contentProblem, domProblem } from '../content-limits.js'
import { NO_NOISE, quietJsonLine, quietText, type NoiseSteps } from './noise.js'
import type { ExtractionResult } from '../extraction.js'
import { printableText } from '../printable-text.js'
import { visibleText } from '../visible-text.js'

/**
 * 2: control characters read as their control pictures (domain/printable-text.ts).
 * 3: noise normalisation (noise.ts) and content-type aware text mode (normalizeBody).
 */
export const NORMALIZATION_VERSION = 3

/** Content as lines: one per visible text block (text, selector) or one per leaf field `path: value` (json, extract). */
export type Normalized =
  | { readonly ok: true; readonly lines: readonly string[] }
  | { readonly ok: false; readonly reason: 'selector_missing' | 'not_json' | 'no_extraction' | 'too_large' | 'no_text' }

/**
 * Finds the nodes a selector names. CSS is built in; the detector passes one that also evaluates XPath with the
 * extraction code's engine. A selector is always the user's text as given: nothing is ever templated into it.
 */
export type SelectNodes = ($: CheerioAPI, selector: string) => AnyNode[]

export const selectCss: SelectNodes = ($, selector) => $(selector).toArray()

/** Never visible, or varying on every load (nonces, CSRF tokens): removed before anything is read. */
const NOISE = 'script, style, noscript, template, input[type="hidden" i], [hidden], [style*="display:none" i], [style*="display: none" i]'
/** Zero-width characters some sites sprinkle into text; invisible, so never a change. */
const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF]/g

export interface HtmlOptions {
  /** Only the nodes this selector matches (mode `selector`); the whole page otherwise. */
  readonly selector?: string | null
  readonly ignoreSelectors: readonly string[]
  readonly select?: SelectNodes
  /** The noise steps to quieten (noise.ts); none when absent. */
  readonly noise?: NoiseSteps
}

/**
 * Modes `text` and `selector`: visible text, whitespace collapsed, hidden parts and ignored selectors removed first.
 * A page over the caps of content-limits.ts (size, element count, depth) is `too_large`, read as unreadable.
 */
export const normalizeHtml = (html: string, options: HtmlOptions): Normalized => {
  const select = options.select ?? selectCss
  if (contentProblem(html)) return { ok: false, reason: 'too_large' }
  const $ = load(html)
  if (domProblem($.root()[0])) return { ok: false, reason: 'too_large' }
  $('*').contents().each((_, node) => {
    // Line breaks inside text are layout, not structure: only block boundaries start a new line.
    if (node.type === 'text') node.data = node.data.replace(/\s+/g, ' ')
    else if (node.type === 'comment') $(node).remove()
  })
  $(NOISE).remove()
  for (const ignored of options.ignoreSelectors) $(select($, ignored)).remove()
  const roots = options.selector ? select($, options.selector) : [$.root()[0]]
  if (roots.length === 0) return { ok: false, reason: 'selector_missing' }
  const noise = options.noise ?? NO_NOISE
  return printableLines(roots.flatMap((root) => textLines(visibleText(root))).map((line) => quietText(line, noise)))
}

/**
 * Every normalization ends here: fingerprints, diffs, summaries, webhooks and e-mails all come from these lines, so
 * no control byte of a page ever goes out of the service through them.
 */
const printableLines = (lines: readonly string[]): Normalized => ({ ok: true, lines: lines.map(printableText) })

const textLines = (text: string): string[] =>
  text.replace(ZERO_WIDTH, '').split('\n').map((line) => line.replace(/\s+/g, ' ').trim()).filter((line) => line !== '')

/** Mode `json`: the body as canonical JSON (sorted keys), one `path: value` line per leaf, its noise quietened. */
export const normalizeJson = (body: string, noise: NoiseSteps = NO_NOISE): Normalized => {
  let value: unknown
  try {
    value = JSON.parse(body.replace(/^\uFEFF/, ''))
  } catch {
    return { ok: false, reason: 'not_json' }
  }
  return printableLines(leafLines('$', value).map((line) => quietJsonLine(line, noise)))
}

const JSON_TYPE = /^\s*[\w.-]+\/(?:[\w.+-]*\+)?json\b/i
const MARKUP_TYPE = /^\s*(?:text\/html|application\/xhtml\+xml|application\/xml|text\/xml|image\/svg\+xml)\b/i
const TEXT_TYPE = /^\s*(?:text\/|application\/(?:javascript|ecmascript|x-ndjson|csv|yaml|x-yaml|toml)\b)/i
/** A body with a NUL, or mostly control characters, is binary whatever its type says. */
const isBinary = (body: string) => body.includes('\u0000') || body.replace(/[^\u0001-\u0008\u000e-\u001f\ufffd]/g, '').length > body.length / 10

/** Whether a response's content type says JSON (the detector then reads the raw body rather than the page). */
export const isJsonType = (contentType: string): boolean => JSON_TYPE.test(contentType)

/**
 * Mode `text` over a raw response (the default mode, whatever the content type): a JSON body, by its content type or
 * because it parses as JSON, is compared as canonical JSON; markup as a page; any other text line by line. Only a
 * body with no text at all (binary: an image, a PDF, an archive) is `no_text`, read as unreadable.
 */
export const normalizeBody = (body: string, contentType: string, options: HtmlOptions): Normalized => {
  const noise = options.noise ?? NO_NOISE
  if (JSON_TYPE.test(contentType)) return normalizeJson(body, noise)
  if (MARKUP_TYPE.test(contentType)) return normalizeHtml(body, options)
  if (/^\s*[[{]/.test(body)) {
    const json = normalizeJson(body, noise)
    if (json.ok) return json
  }
  if (!TEXT_TYPE.test(contentType) && /^\s*</.test(body)) return normalizeHtml(body, options)
  if (isBinary(body)) return { ok: false, reason: 'no_text' }
  return printableLines(textLines(body).map((line) => quietText(line, noise)))
}

/**
 * Mode `extract`: the values each extraction hook produced, one `hook_id.path: value` line per leaf. Run-varying
 * metadata (total_matched, truncated, error messages) is left out; a hook that errored reads as having no value.
 */
export const normalizeExtraction = (result: ExtractionResult | undefined): Normalized => {
  if (!result || !Array.isArray(result.hooks)) return { ok: false, reason: 'no_extraction' }
  const hooks = [...result.hooks].sort((a, b) => compareKeys(a.hook_id, b.hook_id))
  return printableLines(hooks.flatMap((hook) => leafLines(hook.hook_id, hook.status === 'error' ? null : hook.result)))
}

const compareKeys = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/
const childPath = (path: string, key: string) => (IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`)

/** Leaves in canonical order (object keys sorted, arrays by index); strings keep JSON quoting so `"1"` differs from `1`. */
const leafLines = (root: string, value: unknown): string[] => {
  const lines: string[] = []
  const stack: Array<[string, unknown]> = [[root, value]]
  while (stack.length > 0) {
    const [path, current] = stack.pop()!
    if (Array.isArray(current)) {
      if (current.length === 0) lines.push(`${path}: []`)
      for (let i = current.length - 1; i >= 0; i--) stack.push([`${path}[${i}]`, current[i]])
    } else if (typeof current === 'object' && current !== null) {
      const keys = Object.keys(current).sort(compareKeys)
      if (keys.length === 0) lines.push(`${path}: {}`)
      for (let i = keys.length - 1; i >= 0; i--) stack.push([childPath(path, keys[i]), (current as Record<string, unknown>)[keys[i]]])
    } else {
      const scalar = typeof current === 'string' ? JSON.stringify(current.replace(/\s+/g, ' ').trim()) : JSON.stringify(current ?? null)
      lines.push(`${path}: ${scalar}`)
    }
  }
  return lines
}
