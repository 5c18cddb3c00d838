/**
 * `records` hooks: one row per container; every field is looked up inside its own container, so
 * rows stay aligned when some containers lack a field.
 */
import type { AnyNode, Element } from 'domhandler'
import type { CheerioAPI } from 'cheerio'
// cheerio's own selector engine (a dependency of cheerio): compiling once per field beats
// `$(container).find(selector)`, which parses and compiles the selector again for every container.
import { compile, selectOne } from 'css-select'
import type { ExtractionHook, HookResult, RecordField } from '../../domain/extraction.js'
import { attributeOf } from './css.js'
import type { PageContext } from './page.js'
import { failed, NOT_MARKUP } from './result.js'
import { elementText } from '../../domain/visible-text.js'
import { applyTransforms } from './transforms.js'

const isMissing = (v: unknown) => v === null || v === undefined || v === ''
/** jQuery positionals (`li:first`) count over the whole result set, and `+ x` / `~ x` look beside the container: cheerio's way. */
const CHEERIO_ONLY = /:(?:first|last|eq|nth|gt|lt|even|odd)(?![\w-])|^\s*[+~]/i

export function runRecords(hook: ExtractionHook, page: PageContext): HookResult {
  const $ = page.dom()
  if (!$) return failed(hook, NOT_MARKUP)
  const containers = page.select(hook.container!)!
  const fields = Object.entries(hook.fields!)
  const located = fields.map(([, field]) => locate($, containers, field.selector, page.xml))
  const rows: Record<string, unknown>[] = []
  let skipped = 0
  containers.forEach((_, i) => {
    const row = readRow(fields, located.map((elements) => elements[i]), page)
    if (row) rows.push(row)
    else skipped++
  })
  return {
    hook_id: hook.hook_id,
    type: hook.type,
    status: rows.length > 0 ? 'ok' : 'no_match',
    result: rows.slice(0, hook.max_results),
    truncated: rows.length > hook.max_results,
    total_matched: containers.length,
    skipped_records: skipped,
  }
}

/**
 * The first element matching `selector` inside each container, as cheerio's `$(container).find`
 * finds it, but with the selector compiled once instead of once per container: its leftmost part
 * must match the container or something inside it (rootFunc), `:scope` is the container, and a
 * leading `>` means `:scope >`.
 */
function locate($: CheerioAPI, containers: Element[], selector: string, xml: boolean): Array<Element | undefined> {
  if (CHEERIO_ONLY.test(selector)) return containers.map((c) => $(c).find(selector)[0] as Element | undefined)
  let current: Element | undefined
  const inside = (el: Element) => {
    for (let n: AnyNode | null = el; n; n = n.parent) if (n === current) return true
    return false
  }
  const absolute = selector.replace(/^\s*>/, ':scope >')
  const query = compile<AnyNode, Element>(absolute, { xmlMode: xml, rootFunc: inside, pseudos: { scope: (el) => el === current } })
  // Like cheerio, a selector starting with :scope may match the container itself; others only what is inside.
  const withSelf = /^\s*:scope(?![\w-])/.test(absolute)
  return containers.map((c) => {
    current = c
    return selectOne<AnyNode, Element>(query, withSelf ? [c] : c) ?? undefined
  })
}

/** A row, or undefined when a required field is missing. Missing (or empty) values are null unless a default is set. */
function readRow(fields: Array<[string, RecordField]>, elements: Array<Element | undefined>, page: PageContext) {
  const row: Record<string, unknown> = {}
  for (let f = 0; f < fields.length; f++) {
    const [name, field] = fields[f]
    const el = elements[f]
    let value: unknown = null
    if (el) value = field.attribute !== undefined ? (attributeOf(el, field.attribute) ?? null) : elementText(el, page.xml)
    if (!isMissing(value) && field.transform) value = applyTransforms(value, field.transform, page.page.url)
    if (isMissing(value)) value = field.default !== undefined ? field.default : null
    if (field.required && isMissing(value)) return undefined
    row[name] = value
  }
  return row
}
