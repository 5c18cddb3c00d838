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
  const fields: ReadField[] = Object.entries(hook.fields!).map(([name, field]) => ({ name, field, find: finder($, field.selector, page.xml) }))
  // Rows past max_results are not returned, but they are counted: only their required fields are read, to know
  // whether each one is a row or a skipped record.
  const required = fields.filter((f) => f.field.required)
  const rows: Record<string, unknown>[] = []
  let found = 0
  let skipped = 0
  for (const container of containers) {
    const row = readRow(rows.length < hook.max_results ? fields : required, container, page)
    if (!row) skipped++
    else if (++found <= hook.max_results) rows.push(row)
  }
  return {
    hook_id: hook.hook_id,
    type: hook.type,
    status: found > 0 ? 'ok' : 'no_match',
    result: rows,
    truncated: found > hook.max_results,
    total_matched: containers.length,
    skipped_records: skipped,
  }
}

interface ReadField {
  readonly name: string
  readonly field: RecordField
  /** The field's element inside a container. */
  readonly find: (container: Element) => Element | undefined
}

/**
 * The first element matching `selector` inside a container, as cheerio's `$(container).find`
 * finds it, but with the selector compiled once instead of once per container: its leftmost part
 * must match the container or something inside it (rootFunc), `:scope` is the container, and a
 * leading `>` means `:scope >`.
 */
function finder($: CheerioAPI, selector: string, xml: boolean): (container: Element) => Element | undefined {
  if (CHEERIO_ONLY.test(selector)) return (c) => $(c).find(selector)[0] as Element | undefined
  let current: Element | undefined
  const inside = (el: Element) => {
    for (let n: AnyNode | null = el; n; n = n.parent) if (n === current) return true
    return false
  }
  const absolute = selector.replace(/^\s*>/, ':scope >')
  const query = compile<AnyNode, Element>(absolute, { xmlMode: xml, rootFunc: inside, pseudos: { scope: (el) => el === current } })
  // Like cheerio, a selector starting with :scope may match the container itself; others only what is inside.
  const withSelf = /^\s*:scope(?![\w-])/.test(absolute)
  return (c) => {
    current = c
    return selectOne<AnyNode, Element>(query, withSelf ? [c] : c) ?? undefined
  }
}

/** A row of `fields`, or undefined when a required field is missing. Missing (or empty) values are null unless a default is set. */
function readRow(fields: readonly ReadField[], container: Element, page: PageContext) {
  const row: Record<string, unknown> = {}
  for (const { name, field, find } of fields) {
    const el = find(container)
    let value: unknown = null
    if (el) value = field.attribute !== undefined ? (attributeOf(el, field.attribute) ?? null) : elementText(el, page.xml)
    if (!isMissing(value) && field.transform) value = applyTransforms(value, field.transform, page.page.url)
    if (isMissing(value)) value = field.default !== undefined ? field.default : null
    if (field.required && isMissing(value)) return undefined
    row[name] = value
  }
  return row
}
