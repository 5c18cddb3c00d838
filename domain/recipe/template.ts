/**
 * The template engine of recipes. Placeholders (`{input.name}`, `{vars.name}`, `{page}`, `{cursor}`) are filled only
 * where a recipe asks for them in a URL's path and query, a JSON body or form values; the caller never hands it a
 * selector, a script or a header. The origin of a URL template is literal, or its whole host is one input placeholder
 * (`https://{input.server}/...`, for sites that are many servers): either way the rendered origin must be one of the
 * recipe's hosts, and the linter accepts a host placeholder only for an input whose schema is an enum of them. Values
 * in a URL path are percent-encoded as one segment (a value that would make a `.` or `..` segment is refused), query and
 * form values by URLSearchParams, so no value can add or climb a path segment, add a query parameter or reach a host the
 * recipe does not declare.
 */

export interface TemplateScope {
  readonly input: Readonly<Record<string, unknown>>
  readonly vars: Readonly<Record<string, unknown>>
  readonly page?: number
  /** The cursor the previous page of a cursor pagination named (absent on the first page). */
  readonly cursor?: string
}

export type Rendered<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string }

const PLACEHOLDER = /\{(?:(input|vars)\.([a-z][a-z0-9_]*)|(page|cursor))\}/g
const WHOLE = /^\{(?:(input|vars)\.([a-z][a-z0-9_]*)|(page|cursor))\}$/
/** A URL template: literal scheme, a literal host or one input placeholder as the whole host, a literal port, then the rest. */
const URL_TEMPLATE = /^(https?:\/\/)(?:([a-z0-9.-]+)|\{input\.([a-z][a-z0-9_]*)\})((?::[0-9]{1,5})?)((?:[/?#].*)?)$/
const HOST = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/

class MissingValue extends Error {}

const lookup = (scope: TemplateScope, space: string | undefined, name: string | undefined, counter: string | undefined): unknown => {
  if (counter === 'page') return scope.page
  if (counter === 'cursor') return scope.cursor
  const from = space === 'input' ? scope.input : scope.vars
  return Object.prototype.hasOwnProperty.call(from, name!) ? from[name!] : undefined
}

const scalar = (value: unknown, where: string): string => {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (value === undefined || value === null) throw new MissingValue(`${where} has no value`)
  throw new MissingValue(`${where} is not a string, number or boolean`)
}

/** Fills every placeholder of `text`, each value passed through `encode`. */
const fill = (text: string, scope: TemplateScope, encode: (value: string) => string) =>
  text.replace(PLACEHOLDER, (whole, space?: string, name?: string, counter?: string) => encode(scalar(lookup(scope, space, name, counter), whole)))

/** Names of the placeholders a text uses (for the linter). */
export const placeholdersOf = (text: string): string[] => [...text.matchAll(PLACEHOLDER)].map((m) => m[0])

const attempt = <T>(render: () => T): Rendered<T> => {
  try {
    return { ok: true, value: render() }
  } catch (e) {
    if (e instanceof MissingValue) return { ok: false, error: e.message }
    throw e
  }
}

/** `.` and `..`, also percent-encoded: a URL parser resolves them, so a value that makes one would move the request up the path. */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i

/**
 * The path and query of a URL template with its values encoded as segment text. A segment a value turned into `.` or
 * `..` is refused (encoding cannot help: `%2e` is a dot to URL parsers and servers alike), for inputs and for values
 * taken from a site's answers alike.
 */
const fillPath = (rest: string, scope: TemplateScope, template: string): string => {
  const end = rest.search(/[?#]/)
  const path = end < 0 ? rest : rest.slice(0, end)
  const filled = path.split('/').map((segment) => {
    const value = fill(segment, scope, encodeURIComponent)
    if (value !== segment && DOT_SEGMENT.test(value)) throw new MissingValue(`URL template ${template}: a value makes the path segment "${value}", which would move the request along the path`)
    return value
  })
  return filled.join('/') + (end < 0 ? '' : fill(rest.slice(end), scope, encodeURIComponent))
}

/** The input field a URL template takes its whole host from (`https://{input.server}/...`), if it does. */
export const hostInputOf = (template: string): string | undefined => URL_TEMPLATE.exec(template)?.[3]

/**
 * A URL from its template and query templates. A query entry that is only an absent placeholder is left out
 * (optional inputs and the first page's cursor); any other absent value is an error. The result's origin is the
 * template's origin, which must be one of the recipe's hosts: a host placeholder is filled with the input value as
 * it is, and a value that is not a host name, or names a host the recipe does not declare, is refused.
 */
export const renderUrl = (template: string, query: Readonly<Record<string, string>> | undefined, scope: TemplateScope, hosts: readonly string[]): Rendered<string> => {
  const parts = URL_TEMPLATE.exec(template)
  if (!parts) return { ok: false, error: `URL template ${template} must start with a literal http(s) origin, or one whose whole host is an input placeholder` }
  const hostInput = parts[3]
  const host = hostInput === undefined ? parts[2]! : scope.input[hostInput]
  if (typeof host !== 'string' || !HOST.test(host)) return { ok: false, error: `URL template ${template}: {input.${hostInput}} is not a host name` }
  const origin = `${parts[1]}${host}${parts[4]}`
  if (!hosts.includes(origin)) return { ok: false, error: `URL template ${template} is not on one of the recipe's hosts` }
  return attempt(() => {
    const url = new URL(origin + fillPath(parts[5]!, scope, template))
    for (const [name, value] of Object.entries(query ?? {})) {
      const whole = WHOLE.exec(value)
      if (whole) {
        const found = lookup(scope, whole[1], whole[2], whole[3])
        if (found === undefined || found === null) continue
      }
      url.searchParams.append(name, fill(value, scope, (v) => v))
    }
    if (url.origin !== new URL(origin).origin) throw new MissingValue(`URL template ${template} would leave its origin`)
    return url.href
  })
}

/** A JSON body: a string that is exactly one placeholder takes the value as it is (absent: the key is left out). */
export const renderJson = (template: unknown, scope: TemplateScope): Rendered<unknown> => attempt(() => renderJsonValue(template, scope))

const renderJsonValue = (template: unknown, scope: TemplateScope): unknown => {
  if (typeof template === 'string') {
    const whole = WHOLE.exec(template)
    return whole ? lookup(scope, whole[1], whole[2], whole[3]) : fill(template, scope, (v) => v)
  }
  if (Array.isArray(template)) return template.map((item) => renderJsonValue(item, scope)).filter((item) => item !== undefined)
  if (typeof template === 'object' && template !== null) {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, renderJsonValue(v, scope)]).filter(([, v]) => v !== undefined))
  }
  return template
}

/** Name and value pairs (form values, a followed URL's query); absent optional values are left out like query entries. */
export const renderQuery = (entries: Readonly<Record<string, string>>, scope: TemplateScope): Rendered<[string, string][]> => attempt(() => {
  const pairs: [string, string][] = []
  for (const [name, value] of Object.entries(entries)) {
    const whole = WHOLE.exec(value)
    if (whole && lookup(scope, whole[1], whole[2], whole[3]) == null) continue
    pairs.push([name, fill(value, scope, (v) => v)])
  }
  return pairs
})

/** An application/x-www-form-urlencoded body; absent optional values are left out like query entries. */
export const renderForm = (form: Readonly<Record<string, string>>, scope: TemplateScope): Rendered<string> => {
  const pairs = renderQuery(form, scope)
  return pairs.ok ? { ok: true, value: new URLSearchParams(pairs.value).toString() } : pairs
}

/** Text for the output (not a URL, body or selector): placeholders filled as they are; absent values are errors. */
export const renderText = (text: string, scope: TemplateScope): Rendered<string> => attempt(() => fill(text, scope, (v) => v))
