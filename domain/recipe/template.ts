/**
 * The template engine of recipes. Placeholders (`{input.name}`, `{vars.name}`, `{page}`) are filled only where a
 * recipe asks for them in a URL's path and query, a JSON body or form values; the caller never hands it a selector,
 * a script, a header or a host. The origin of a URL template is literal (no placeholder may come before its path)
 * and must be one of the recipe's hosts; values in a URL path are percent-encoded as one segment, query and form
 * values by URLSearchParams, so no value can add a path segment, a query parameter or change the host.
 */

export interface TemplateScope {
  readonly input: Readonly<Record<string, unknown>>
  readonly vars: Readonly<Record<string, unknown>>
  readonly page?: number
}

export type Rendered<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string }

const PLACEHOLDER = /\{(?:(input|vars)\.([a-z][a-z0-9_]*)|(page))\}/g
const WHOLE = /^\{(?:(input|vars)\.([a-z][a-z0-9_]*)|(page))\}$/
/** A URL template: literal scheme and host (and port), then the rest. */
const URL_TEMPLATE = /^(https?:\/\/[a-z0-9.-]+(?::[0-9]{1,5})?)((?:[/?#].*)?)$/

class MissingValue extends Error {}

const lookup = (scope: TemplateScope, space: string | undefined, name: string | undefined, page: string | undefined): unknown => {
  if (page !== undefined) return scope.page
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
  text.replace(PLACEHOLDER, (whole, space?: string, name?: string, page?: string) => encode(scalar(lookup(scope, space, name, page), whole)))

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

/**
 * A URL from its template and query templates. A query entry that is only an absent placeholder is left out
 * (optional inputs); any other absent value is an error. The result's origin is the template's literal origin.
 */
export const renderUrl = (template: string, query: Readonly<Record<string, string>> | undefined, scope: TemplateScope, hosts: readonly string[]): Rendered<string> => {
  const parts = URL_TEMPLATE.exec(template)
  if (!parts) return { ok: false, error: `URL template ${template} must start with a literal http(s) origin` }
  const origin = parts[1]!
  if (!hosts.includes(origin)) return { ok: false, error: `URL template ${template} is not on one of the recipe's hosts` }
  return attempt(() => {
    const url = new URL(origin + fill(parts[2]!, scope, encodeURIComponent))
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
