/**
 * `records` hooks: one row per container; every field is looked up inside its own container, so
 * rows stay aligned when some containers lack a field.
 */
import type { Element } from 'domhandler'
import type { CheerioAPI } from 'cheerio'
import type { ExtractionHook, HookResult, RecordField } from '../../domain/extraction.js'
import { attributeOf } from './css.js'
import type { PageContext } from './page.js'
import { failed, NOT_MARKUP } from './result.js'
import { elementText } from './text.js'
import { applyTransforms } from './transforms.js'

const isMissing = (v: unknown) => v === null || v === undefined || v === ''
/** Selectors whose meaning depends on the single container they run in (:scope, jQuery positionals, leading combinators). */
const CONTEXT_BOUND = /:scope|:(?:first|last|eq|nth|gt|lt|even|odd)(?![\w-])|^\s*[>+~]/i

export function runRecords(hook: ExtractionHook, page: PageContext): HookResult {
  const $ = page.dom()
  if (!$) return failed(hook, NOT_MARKUP)
  const containers = $(hook.container!).toArray() as Element[]
  const fields = Object.entries(hook.fields!)
  const nested = hasNested(containers)
  const located = fields.map(([, field]) => locate($, containers, field.selector, nested))
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
 * The first element matching `selector` inside each container. One query over all containers
 * (then each match goes to the container it sits in) instead of one query per container, which
 * recompiles the selector every time; per container when batching could change the answer.
 */
function locate($: CheerioAPI, containers: Element[], selector: string, nested: boolean): Array<Element | undefined> {
  if (nested || CONTEXT_BOUND.test(selector)) return containers.map((c) => $(c).find(selector)[0] as Element | undefined)
  const index = new Map(containers.map((c, i) => [c, i]))
  const first: Array<Element | undefined> = new Array(containers.length)
  for (const el of $(containers).find(selector).toArray() as Element[]) {
    for (let p = el.parent; p; p = p.parent) {
      const i = index.get(p as Element)
      if (i === undefined) continue
      first[i] ??= el
      break
    }
  }
  return first
}

function hasNested(containers: Element[]): boolean {
  const set = new Set<unknown>(containers)
  return containers.some((c) => {
    for (let p = c.parent; p; p = p.parent) if (set.has(p)) return true
    return false
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
