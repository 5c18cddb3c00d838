/**
 * Extraction hooks (SPEC 2.2): their shape, their validation rules and error codes, and the shape of
 * their results. Pure: syntax checks use parsing libraries only (cheerio's selector engine, xpath,
 * jsonpath-plus, re2js for hook patterns, safe-regex2 for recipe patterns), so what passes here is exactly what the
 * runtime accepts.
 */
import { load, type CheerioAPI } from 'cheerio'
import xpathLib from 'xpath'
import { JSONPath } from 'jsonpath-plus'
import safeRegex from 'safe-regex2'
import { selectorComplexityProblem } from './content-limits.js'
import { fieldError, type FieldError } from './errors.js'
import { checkHookPattern } from './hook-pattern.js'
import { isCleanText, unknownFields } from './validation.js'

export const HOOK_TYPES = ['css', 'xpath', 'regex', 'jsonpath', 'records'] as const
export type HookType = (typeof HOOK_TYPES)[number]

/** Transforms a record field may list, applied in order. Shared by validation, runtime and docs. */
export const TRANSFORMS = ['number', 'integer', 'trim', 'lowercase', 'uppercase', 'boolean', 'url', 'date', 'html_text'] as const
export type TransformName = (typeof TRANSFORMS)[number]

export const MAX_HOOKS = 25
/** hook_id names a hook's result: clean text (no control characters, valid Unicode) of at most this length. */
export const MAX_HOOK_ID_LENGTH = 128
/** Fields per records hook: each is one selector run per container. */
export const MAX_FIELDS = 50
export const DEFAULT_MAX_RESULTS = 50
export const MAX_MAX_RESULTS = 1000
/** Longest selector, path or pattern accepted: keeps compile and match costs bounded. */
export const MAX_EXPRESSION_LENGTH = 2000
/** Prefixes always usable in XPath (SVG and MathML keep their own namespaces in HTML); XML pages add theirs. */
export const XPATH_NAMESPACES: Readonly<Record<string, string>> = {
  html: 'http://www.w3.org/1999/xhtml',
  xhtml: 'http://www.w3.org/1999/xhtml',
  svg: 'http://www.w3.org/2000/svg',
  xlink: 'http://www.w3.org/1999/xlink',
  math: 'http://www.w3.org/1998/Math/MathML',
  xml: 'http://www.w3.org/XML/1998/namespace',
  xmlns: 'http://www.w3.org/2000/xmlns/',
}

export interface RecordField {
  readonly selector: string
  readonly attribute?: string
  readonly transform?: readonly TransformName[]
  readonly required?: boolean
  readonly default?: unknown
}

export interface ExtractionHook {
  readonly hook_id: string
  readonly type: HookType
  readonly selector?: string
  readonly attribute?: string
  readonly path?: string
  readonly pattern?: string
  readonly group?: number
  readonly all_matches: boolean
  readonly max_results: number
  readonly container?: string
  readonly fields?: Readonly<Record<string, RecordField>>
}

export interface ExtractionSpec {
  readonly hooks: readonly ExtractionHook[]
}

/**
 * ok: the hook matched; no_match: nothing matched (never fails the job);
 * error: the hook itself failed (time budget exceeded, body not JSON, page not HTML...), see `error`.
 */
export type HookStatus = 'ok' | 'no_match' | 'error'

export interface HookResult {
  readonly hook_id: string
  readonly type: HookType
  readonly status: HookStatus
  /** One value (or null) unless all_matches; a list for all_matches and for records. */
  readonly result: unknown
  /** More matches existed than max_results let through. */
  readonly truncated: boolean
  readonly total_matched: number
  /** Records dropped because a required field was missing (records hooks only, else 0). */
  readonly skipped_records: number
  readonly error?: string
}

export interface ExtractionResult {
  readonly hooks: readonly HookResult[]
}

type Obj = Record<string, unknown>
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const isBlank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '')
// An HTML attribute name: no whitespace, quotes, `>`, `/` or `=`.
const ATTRIBUTE_NAME = /^[^\s"'>/=\u0000-\u001f]{1,256}$/

/** Validate `extraction` from a job request; collects every error, fills defaults. */
export function validateExtraction(input: unknown): { value?: ExtractionSpec; errors: FieldError[] } {
  const errors: FieldError[] = []
  if (!isObject(input)) return { errors: [fieldError('extraction', 'invalid_extraction', 'extraction must be an object with hooks')] }
  unknownFields(errors, 'extraction.', input, new Set(['hooks']))
  if (!Array.isArray(input.hooks)) {
    return { errors: [fieldError('extraction.hooks', 'invalid_extraction', 'extraction.hooks must be an array')] }
  }
  if (input.hooks.length > MAX_HOOKS) {
    errors.push(fieldError('extraction.hooks', 'too_many_hooks', `at most ${MAX_HOOKS} hooks per job`))
  }
  const seen = new Set<string>()
  const hooks: ExtractionHook[] = []
  input.hooks.forEach((raw, i) => {
    const hook = validateHook(errors, `extraction.hooks[${i}]`, raw, seen)
    if (hook) hooks.push(hook)
  })
  return errors.length > 0 ? { errors } : { value: { hooks }, errors }
}

const COMMON_HOOK_FIELDS = ['hook_id', 'type', 'all_matches', 'max_results']
const HOOK_FIELDS: Readonly<Record<HookType, ReadonlySet<string>>> = {
  css: new Set([...COMMON_HOOK_FIELDS, 'selector', 'attribute']),
  xpath: new Set([...COMMON_HOOK_FIELDS, 'path']),
  jsonpath: new Set([...COMMON_HOOK_FIELDS, 'path']),
  regex: new Set([...COMMON_HOOK_FIELDS, 'pattern', 'group']),
  records: new Set([...COMMON_HOOK_FIELDS, 'container', 'fields']),
}
const RECORD_FIELD_FIELDS: ReadonlySet<string> = new Set(['selector', 'attribute', 'transform', 'required', 'default'])

function validateHook(errors: FieldError[], at: string, raw: unknown, seen: Set<string>): ExtractionHook | undefined {
  if (!isObject(raw)) {
    errors.push(fieldError(at, 'invalid_hook', 'a hook must be an object'))
    return undefined
  }
  const before = errors.length
  const err = (field: string, code: string, message: string) => errors.push(fieldError(`${at}.${field}`, code, message))

  const type = raw.type as HookType
  const known = HOOK_FIELDS[type]
  if (known) unknownFields(errors, `${at}.`, raw, known)
  if (typeof raw.hook_id !== 'string' || raw.hook_id.trim() === '') err('hook_id', 'missing_hook_id', 'hook_id is required')
  else if (raw.hook_id.length > MAX_HOOK_ID_LENGTH || !isCleanText(raw.hook_id)) {
    err('hook_id', 'invalid_hook_id', `hook_id must be at most ${MAX_HOOK_ID_LENGTH} characters, without control characters or invalid Unicode`)
  }
  else if (seen.has(raw.hook_id)) err('hook_id', 'duplicate_hook_id', `hook_id "${raw.hook_id}" is used twice`)
  else seen.add(raw.hook_id)

  if (!(HOOK_TYPES as readonly unknown[]).includes(type)) err('type', 'invalid_hook_type', `type must be one of ${HOOK_TYPES.join(', ')}`)

  // Only an absent field takes its default; null is a wrong value, as elsewhere in job validation.
  const maxResults = raw.max_results === undefined ? DEFAULT_MAX_RESULTS : raw.max_results
  if (!Number.isInteger(maxResults) || (maxResults as number) < 1 || (maxResults as number) > MAX_MAX_RESULTS) {
    err('max_results', 'invalid_max_results', `max_results must be an integer from 1 to ${MAX_MAX_RESULTS}`)
  }
  const allMatches = raw.all_matches === undefined ? false : raw.all_matches
  if (typeof allMatches !== 'boolean') err('all_matches', 'invalid_all_matches', 'all_matches must be a boolean')

  const hook: Record<string, unknown> = { hook_id: raw.hook_id, type, all_matches: allMatches, max_results: maxResults }
  if (type === 'css') {
    hook.selector = checkSelector(err, 'selector', raw.selector, 'missing_selector', 'invalid_selector')
    hook.attribute = checkAttribute(err, 'attribute', raw.attribute)
  } else if (type === 'xpath' || type === 'jsonpath') {
    if (isBlank(raw.path)) err('path', 'missing_path', `path is required for ${type} hooks`)
    else if (typeof raw.path !== 'string' || raw.path.length > MAX_EXPRESSION_LENGTH) {
      err('path', type === 'xpath' ? 'invalid_xpath' : 'invalid_path', `path must be a string of at most ${MAX_EXPRESSION_LENGTH} characters`)
    } else {
      const problem = type === 'xpath' ? xpathProblem(raw.path) : jsonPathProblem(raw.path)
      if (problem) err('path', type === 'xpath' ? 'invalid_xpath' : 'invalid_path', problem)
      hook.path = raw.path
    }
  } else if (type === 'regex') {
    Object.assign(hook, checkRegex(err, raw.pattern, raw.group))
  } else if (type === 'records') {
    hook.container = checkSelector(err, 'container', raw.container, 'missing_container', 'invalid_selector')
    hook.fields = checkFields(err, raw.fields)
  }
  if (errors.length > before) return undefined
  for (const key of Object.keys(hook)) if (hook[key] === undefined) delete hook[key]
  return hook as unknown as ExtractionHook
}

type Err = (field: string, code: string, message: string) => void

function checkSelector(err: Err, field: string, value: unknown, missing: string, invalid: string): string | undefined {
  if (isBlank(value)) {
    err(field, missing, `${field} is required`)
    return undefined
  }
  if (typeof value !== 'string' || value.length > MAX_EXPRESSION_LENGTH) {
    err(field, invalid, `${field} must be a CSS selector of at most ${MAX_EXPRESSION_LENGTH} characters`)
    return undefined
  }
  const problem = cssProblem(value)
  if (problem) err(field, invalid, `${field} is not a valid CSS selector: ${problem}`)
  const tooComplex = problem ? undefined : selectorComplexityProblem(value)
  if (tooComplex) err(field, 'selector_too_complex', `${field} is too complex: ${tooComplex}`)
  return value
}

function checkAttribute(err: Err, field: string, value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || !ATTRIBUTE_NAME.test(value)) {
    err(field, 'invalid_attribute', 'attribute must be an HTML attribute name')
    return undefined
  }
  return value
}

function checkRegex(err: Err, pattern: unknown, group: unknown): { pattern?: string; group?: number } {
  let groups: number | undefined
  if (isBlank(pattern)) err('pattern', 'missing_pattern', 'pattern is required for regex hooks')
  else if (typeof pattern !== 'string' || pattern.length > MAX_EXPRESSION_LENGTH) {
    err('pattern', 'invalid_pattern', `pattern must be a string of at most ${MAX_EXPRESSION_LENGTH} characters`)
  } else {
    const checked = checkHookPattern(pattern)
    if (checked.ok) groups = checked.groups
    else err('pattern', checked.code, checked.message)
  }
  const g = group === undefined ? 0 : group
  if (!Number.isInteger(g) || (g as number) < 0 || (groups !== undefined && (g as number) > groups)) {
    err('group', 'invalid_group', `group must be an integer from 0 to ${groups ?? 'the number of groups in the pattern'}`)
  }
  return { pattern: pattern as string, group: g as number }
}

function checkFields(err: Err, fields: unknown): Record<string, RecordField> | undefined {
  if (!isObject(fields) || Object.keys(fields).length === 0) {
    err('fields', 'missing_fields', 'records hooks need fields: a map of field name to {selector, ...}')
    return undefined
  }
  if (Object.keys(fields).length > MAX_FIELDS) err('fields', 'too_many_fields', `at most ${MAX_FIELDS} fields per records hook`)
  const out: Record<string, RecordField> = {}
  for (const [name, raw] of Object.entries(fields)) {
    const at = `fields.${name}`
    if (!isObject(raw)) {
      err(at, 'invalid_field_selector', 'a field must be an object with a selector')
      continue
    }
    if (!isCleanText(name) || name.length > MAX_HOOK_ID_LENGTH) err(at, 'invalid_field_name', `field names are at most ${MAX_HOOK_ID_LENGTH} characters, without control characters or invalid Unicode`)
    for (const key of Object.keys(raw)) if (!RECORD_FIELD_FIELDS.has(key)) err(`${at}.${key}`, 'unknown_field', `${at}.${key} is not a known field`)
    const selector = checkSelector(err, `${at}.selector`, raw.selector, 'invalid_field_selector', 'invalid_field_selector')
    const field: { -readonly [K in keyof RecordField]: RecordField[K] } = { selector: selector ?? '' }
    const attribute = checkAttribute(err, `${at}.attribute`, raw.attribute)
    if (attribute !== undefined) field.attribute = attribute
    if (raw.transform !== undefined) {
      const list = raw.transform
      const bad = !Array.isArray(list) || list.length > 2 * TRANSFORMS.length
        ? [JSON.stringify(list)]
        : list.filter((t) => !(TRANSFORMS as readonly unknown[]).includes(t))
      if (bad.length > 0) err(`${at}.transform`, 'invalid_transform', `unknown transform ${bad.map(String).join(', ')}; known: ${TRANSFORMS.join(', ')}`)
      else field.transform = list as TransformName[]
    }
    if (raw.required !== undefined) {
      if (typeof raw.required !== 'boolean') err(`${at}.required`, 'invalid_required', 'required must be a boolean')
      else field.required = raw.required
    }
    if (raw.default !== undefined) field.default = raw.default
    out[name] = field
  }
  return out
}

// ---- syntax checks (each returns a short problem, or undefined when fine) ----

let probeDoc: CheerioAPI | undefined
/** Compile the selector with the same engine the runtime uses (cheerio-select), so unknown pseudos fail here. */
export function cssProblem(selector: string): string | undefined {
  // The engine tolerates a dangling combinator ("div >" selects children); CSS does not.
  if (/[>+~]\s*$/.test(selector)) return 'selector ends with a combinator'
  probeDoc ??= load('<div><p></p></div>')
  try {
    probeDoc.root().find(selector)
    return undefined
  } catch (e) {
    return (e as Error).message
  }
}

// The parser and AST classes exist at run time but are missing from xpath's typings.
interface XPathInternals {
  parse(expression: string): { expression: unknown }
  FunctionResolver: new () => { functions: Record<string, unknown> }
  VariableReference: abstract new (...args: never[]) => object
}
const xpath = xpathLib as unknown as XPathInternals
const XPATH_FUNCTIONS = new Set(Object.keys(new xpath.FunctionResolver().functions).map((k) => k.replace(/^\{\}/, '')))

/**
 * Parse, then walk the expression: unknown functions and variables only fail at run time otherwise.
 * Namespace prefixes are not checked: XML pages (feeds, sitemaps) declare their own.
 */
export function xpathProblem(path: string): string | undefined {
  let parsed: { expression: unknown }
  try {
    parsed = xpath.parse(path)
  } catch (e) {
    return `XPath does not parse: ${(e as Error).message}`
  }
  const stack: unknown[] = [parsed.expression]
  const visited = new Set<unknown>()
  while (stack.length > 0) {
    const node = stack.pop()
    if (typeof node !== 'object' || node === null || visited.has(node)) continue
    visited.add(node)
    if (node instanceof xpath.VariableReference) return 'XPath variables are not supported'
    const n = node as Record<string, unknown>
    if (typeof n.functionName === 'string' && !XPATH_FUNCTIONS.has(n.functionName)) return `unknown XPath function ${n.functionName}()`
    for (const value of Object.values(n)) stack.push(value)
  }
  return undefined
}

/** jsonpath-plus accepts unbalanced paths silently, so check brackets first, then try the path and its filters. */
export function jsonPathProblem(path: string): string | undefined {
  if (!path.startsWith('$')) return 'JSONPath must start with $'
  const closers: string[] = []
  const pairs: Record<string, string> = { '[': ']', '(': ')' }
  let quote = ''
  for (let i = 0; i < path.length; i++) {
    const c = path[i]
    if (quote) {
      if (c === '\\') i++
      else if (c === quote) quote = ''
    } else if (c === "'" || c === '"') quote = c
    else if (c in pairs) closers.push(pairs[c])
    else if ((c === ']' || c === ')') && closers.pop() !== c) return `unbalanced "${c}" at character ${i}`
  }
  if (quote) return 'unterminated string'
  if (closers.length > 0) return `missing "${closers[closers.length - 1]}"`
  // Filters only run on nodes, so probe each script against one empty object to surface syntax errors.
  const scripts = [...path.matchAll(/\[\?\((.*?)\)\]/g)].map((m) => `$[?(${m[1]})]`)
  for (const probe of [jsonPathForEngine(path), ...scripts]) {
    try {
      JSONPath({ path: probe, json: [{}], wrap: true, eval: 'safe', ignoreEvalErrors: false })
    } catch (e) {
      const message = (e as Error).message
      // "jsonPath: Cannot read properties..." is a data-dependent failure, not a broken path.
      if (!message.startsWith('jsonPath:') || /is not defined|Unexpected/.test(message)) return `JSONPath is invalid: ${message}`
    }
  }
  return undefined
}

/**
 * The path as jsonpath-plus must see it. It reads a key starting with `@` (JSON-LD's `@type`,
 * `@graph`, `@id`) as its own type operator unless escaped with a backtick, and then throws on
 * objects lacking the key; `$..['@type']` or `.@type` are escaped here (scripts left alone).
 */
export function jsonPathForEngine(path: string): string {
  let out = ''
  let depth = 0
  for (let i = 0; i < path.length; i++) {
    const c = path[i]
    if (c === '(') depth++
    else if (c === ')') depth--
    out += c
    if (depth > 0) continue
    const quoted = c === '[' && /^['"]@/.test(path.slice(i + 1, i + 3))
    const dotted = c === '.' && /^@[\w$-]+(?![\w$(-])/.test(path.slice(i + 1))
    if (quoted) {
      out += `${path[i + 1]}\``
      i++
    } else if (dotted) out += '`'
  }
  return out
}

/**
 * A recipe's pattern (run by JavaScript's engine, unlike hook patterns: hook-pattern.ts) must compile and must not be
 * catastrophic (exponential backtracking) per safe-regex2.
 */
export function regexProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern)
  } catch (e) {
    return `pattern does not compile: ${(e as Error).message}`
  }
  if (!safeRegex(forSafetyCheck(pattern))) return 'pattern may backtrack catastrophically (nested or ambiguous repetition)'
  return undefined
}

/**
 * What safe-regex2 is shown, to spare common patterns its false alarms. It counts every quantifier
 * as repetition, so `(\d+(?:\.\d+)?)` or `(?:\d{3}-)*` would be "nested"; but an optional part
 * (`?`, `{0,1}`) or a fixed count of one atom (`\d{3}`) adds no ambiguity, so those are dropped.
 * Its parser cannot read lookbehind (such patterns were all "unsafe"): they become plain groups,
 * whose content is still checked.
 */
function forSafetyCheck(pattern: string): string {
  let out = ''
  let inClass = false
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '\\') {
      out += pattern.slice(i, i + 2)
      i++
    } else if (inClass) {
      if (c === ']') inClass = false
      out += c
    } else if (c === '[') {
      inClass = true
      out += c
    } else if (pattern.startsWith('(?<=', i) || pattern.startsWith('(?<!', i)) {
      out += '(?:'
      i += 3
    } else if (c === '?' && pattern[i - 1] !== '(') {
      // optional (or lazy) quantifier: dropped
    } else if (c === '{' && droppable(pattern.slice(i, i + 24), pattern[i - 1])) {
      i = pattern.indexOf('}', i)
    } else out += c
  }
  return out
}

/** `{0,1}` anywhere; `{n}` after a single atom (`\d{3}`), not after a group: `(.*a){12}` is a real danger. */
const droppable = (quantifier: string, before: string | undefined) =>
  /^\{\d+,[01]\}/.test(quantifier) || (/^\{\d+\}/.test(quantifier) && before !== ')')
