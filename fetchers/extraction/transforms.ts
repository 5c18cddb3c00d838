/**
 * Record field transforms. Each takes the value so far and returns the new one; null flows through,
 * and a transform that cannot apply (or throws) yields null: a transform never fails a job.
 */
import { load } from 'cheerio'
import type { TransformName } from '../../domain/extraction.js'
import { collapse, elementText } from '../../domain/visible-text.js'

type Transform = (value: unknown, pageUrl: string) => unknown

const asString = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v))

/** Every name in TRANSFORMS must have an implementation (checked by the compiler through Record). */
const TRANSFORM_FUNCTIONS: Record<TransformName, Transform> = {
  number: (v) => parseNumber(v),
  integer: (v) => {
    const n = parseNumber(v, { loneDotGroups: true })
    return n === null ? null : Math.trunc(n) + 0 // + 0 turns -0 into 0
  },
  trim: (v) => asString(v).trim(),
  lowercase: (v) => asString(v).toLowerCase(),
  uppercase: (v) => asString(v).toUpperCase(),
  boolean: (v) => parseBoolean(v),
  url: (v, pageUrl) => {
    const s = asString(v).trim()
    return s === '' ? null : new URL(s, pageUrl).href
  },
  date: (v) => parseDate(asString(v)),
  html_text: (v) => elementText(load(asString(v), null, false).root()[0]),
}

export function applyTransforms(value: unknown, names: readonly TransformName[], pageUrl: string): unknown {
  let v = value
  for (const name of names) {
    if (v === null || v === undefined) return null
    try {
      v = TRANSFORM_FUNCTIONS[name](v, pageUrl)
    } catch {
      return null
    }
  }
  return v ?? null
}

const MINUS = /[\u2212\u2012\u2013\u2014\ufe63\uff0d]/g
const SPACE = /[\s\u00a0\u202f\u2009]+/

/**
 * Locale-aware number: "1,234.56" and "1.234,56" give 1234.56, "1 234,5" gives 1234.5, "$12" 12,
 * "12 %" 12, "−3" -3. One separator followed by exactly three digits is read as grouping for a
 * comma ("1,234" → 1234) and as a decimal point for a dot ("1.234" → 1.234). Null when no number.
 */
/**
 * `loneDotGroups`: a single dot before exactly three digits ("1.234") groups thousands, as in German or Spanish
 * counts; only for integers, where a three-digit fraction is no reading anyone means.
 */
export function parseNumber(value: unknown, options: { readonly loneDotGroups?: boolean } = {}): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value !== 'string') return null
  const s = value.replace(MINUS, '-')
  const found = /\.?\d[\d.,'’\s\u00a0\u202f\u2009]*/.exec(s)
  if (!found) return null
  // A minus sign counts when it is not glued to a word ("SKU-12"); a currency sign may sit between ("-$12", "$-12").
  const negative = /(?:^|[^\p{L}\p{N}])-\s*(?:[^\p{L}\p{N}\s]{1,3}\s*)?$/u.test(s.slice(0, found.index))
  const groups = found[0].replace(/[.,'’\s\u00a0\u202f\u2009]+$/, '').split(SPACE)
  // Spaces group thousands only as "1 234 567": later space-separated groups of other sizes are other numbers.
  let token = groups[0]
  if (/^\d{1,3}$/.test(token)) {
    for (const g of groups.slice(1)) {
      if (!/^\d{3}(?:[.,]\d*)?$/.test(g)) break
      token += g
      if (!/^\d{3}$/.test(g)) break
    }
  }
  token = token.replace(/['’]/g, '')
  const n = Number.parseFloat(normalizeSeparators(token, options.loneDotGroups === true))
  if (!Number.isFinite(n)) return null
  return negative ? -n : n
}

function normalizeSeparators(token: string, loneDotGroups: boolean): string {
  const dot = token.lastIndexOf('.')
  const comma = token.lastIndexOf(',')
  if (dot >= 0 && comma >= 0) {
    // Both present: the last one is the decimal separator.
    const [decimal, grouping] = dot > comma ? ['.', ','] : [',', '.']
    return token.split(grouping).join('').replace(decimal, '.')
  }
  if (comma >= 0) {
    const parts = token.split(',')
    const grouping = parts.length > 2 || (parts[1].length === 3 && parts[0] !== '0')
    return grouping ? parts.join('') : token.replace(',', '.')
  }
  if (dot >= 0 && (token.split('.').length > 2 || (loneDotGroups && /^[1-9]\d{0,2}\.\d{3}$/.test(token)))) return token.split('.').join('')
  return token
}

const TRUE = new Set(['true', 'yes', '1', 'on'])
const FALSE = new Set(['false', 'no', '0', 'off'])
export function parseBoolean(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value
  const s = asString(value).trim().toLowerCase()
  return TRUE.has(s) ? true : FALSE.has(s) ? false : null
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')
const TIME = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/

/** A calendar date as YYYY-MM-DD, or null when it does not exist (31 February). */
function calendarDate(y: number, m: number, d: number): string | null {
  const t = new Date(Date.UTC(y, m - 1, d))
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d ? `${pad(y, 4)}-${pad(m)}-${pad(d)}` : null
}

/**
 * ISO 8601 from common date notations. Date-only input gives YYYY-MM-DD; input with a time gives a
 * full UTC timestamp (times without a zone are read in the server's zone), except numeric dates
 * with a time, which stay local ("2024-03-05T14:30:00"). Numeric dates: "dd.mm.yyyy" is day first,
 * "mm/dd/yyyy" month first unless the first number exceeds 12. Null when unparseable.
 */
export function parseDate(value: string): string | null {
  const s = collapse(value)
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return calendarDate(+s.slice(0, 4), +s.slice(5, 7), +s.slice(8, 10))
  const numeric = /^(\d{1,4})([./-])(\d{1,2})\2(\d{1,4})(?:[ T,]+(.+))?$/.exec(s)
  if (numeric) {
    const [, a, sep, b, c, time] = numeric
    let date: string | null
    if (a.length === 4) date = calendarDate(+a, +b, +c)
    else if (c.length !== 4) return null
    else if (sep === '.' || +a > 12) date = calendarDate(+c, +b, +a)
    else date = calendarDate(+c, +a, +b)
    if (!date || time === undefined) return date
    const t = TIME.exec(time)
    // Anything richer than hh:mm[:ss] (fractions, zones: "2024-03-05T17:30:00+01:00") is left to Date.parse below.
    if (t && +t[1] < 24 && +t[2] < 60 && +(t[3] ?? 0) < 60) return `${date}T${pad(+t[1])}:${t[2]}:${t[3] ?? '00'}`
  }
  // V8's parser accepts odd input ("Model 3" is a date), so insist on a four-digit year.
  if (!/(?:^|\D)\d{4}(?:\D|$)/.test(s)) return null
  const ms = Date.parse(s)
  if (Number.isNaN(ms)) return null
  const d = new Date(ms)
  if (/\d{1,2}:\d{2}/.test(s)) return d.toISOString()
  return calendarDate(d.getFullYear(), d.getMonth() + 1, d.getDate())
}
