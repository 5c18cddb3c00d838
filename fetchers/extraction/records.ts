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

export function runRecords(hook: ExtractionHook, page: PageContext): HookResult {
  const $ = page.dom()
  if (!$) return failed(hook, NOT_MARKUP)
  const containers = $(hook.container!).toArray() as Element[]
  const fields = Object.entries(hook.fields!)
  const rows: Record<string, unknown>[] = []
  let skipped = 0
  for (const container of containers) {
    const row = readRow($, container, fields, page)
    if (row) rows.push(row)
    else skipped++
  }
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

/** A row, or undefined when a required field is missing. Missing (or empty) values are null unless a default is set. */
function readRow($: CheerioAPI, container: Element, fields: Array<[string, RecordField]>, page: PageContext) {
  const scope = $(container)
  const row: Record<string, unknown> = {}
  for (const [name, field] of fields) {
    const el = scope.find(field.selector)[0] as Element | undefined
    let value: unknown = null
    if (el) value = field.attribute !== undefined ? (attributeOf(el, field.attribute) ?? null) : elementText(el, page.xml)
    if (!isMissing(value) && field.transform) value = applyTransforms(value, field.transform, page.page.url)
    if (isMissing(value)) value = field.default !== undefined ? field.default : null
    if (field.required && isMissing(value)) return undefined
    row[name] = value
  }
  return row
}
