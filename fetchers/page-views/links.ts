/**
 * The `links` artifact of a document that no browser rendered: every a href made absolute against the document's base
 * URL (as a browser's `a.href` is), each once, until their total length passes `maxChars`.
 */
export const linksOf = (document: { querySelectorAll(selector: string): Iterable<{ getAttribute(name: string): string | null }> }, baseUrl: string, maxChars: number): string[] => {
  const out = new Set<string>()
  let total = 0
  for (const a of document.querySelectorAll('a[href]')) {
    let href: string
    try {
      href = new URL(a.getAttribute('href') ?? '', baseUrl).href
    } catch {
      continue
    }
    if (out.has(href)) continue
    total += href.length
    if (total > maxChars) break
    out.add(href)
  }
  return [...out]
}
