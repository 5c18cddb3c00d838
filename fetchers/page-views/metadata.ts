/** The `page_metadata` artifact, read from the document (the rendered DOM of a browser tier, the light tier's HTML). */
export interface PageMetadata {
  readonly url: string
  readonly title: string | null
  readonly description: string | null
  readonly canonical: string | null
  /** `og:*` properties, keyed without the prefix (`title`, `image`, ...); repeated properties become lists. */
  readonly open_graph: Record<string, string | string[]>
  /** `twitter:*` names, keyed without the prefix. */
  readonly twitter: Record<string, string | string[]>
  /** Every JSON-LD block that parses; blocks that do not are counted in `json_ld_errors`. */
  readonly json_ld: unknown[]
  readonly json_ld_errors: number
}

const absolute = (href: string | null | undefined, base: string): string | null => {
  if (!href) return null
  try {
    return new URL(href, base).href
  } catch {
    return null
  }
}

const add = (into: Record<string, string | string[]>, key: string, value: string) => {
  const existing = into[key]
  into[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value]
}

export const pageMetadata = (document: Document, url: string): PageMetadata => {
  const meta = (selector: string) => document.querySelector(selector)?.getAttribute('content')?.trim() || null
  const openGraph: Record<string, string | string[]> = {}
  const twitter: Record<string, string | string[]> = {}
  for (const el of document.querySelectorAll('meta[property], meta[name]')) {
    const key = (el.getAttribute('property') ?? el.getAttribute('name') ?? '').trim().toLowerCase()
    const content = el.getAttribute('content')
    if (content === null) continue
    if (key.startsWith('og:')) add(openGraph, key.slice(3), content)
    else if (key.startsWith('twitter:')) add(twitter, key.slice(8), content)
  }
  const jsonLd: unknown[] = []
  let jsonLdErrors = 0
  for (const script of document.querySelectorAll('script[type="application/ld+json"]')) {
    try {
      jsonLd.push(JSON.parse(script.textContent ?? ''))
    } catch {
      jsonLdErrors += 1
    }
  }
  const baseHref = absolute(document.querySelector('base[href]')?.getAttribute('href'), url) ?? url
  return {
    url,
    title: document.querySelector('title')?.textContent?.trim() || null,
    description: meta('meta[name="description"]'),
    canonical: absolute(document.querySelector('link[rel="canonical"]')?.getAttribute('href'), baseHref),
    open_graph: openGraph,
    twitter,
    json_ld: jsonLd,
    json_ld_errors: jsonLdErrors,
  }
}
