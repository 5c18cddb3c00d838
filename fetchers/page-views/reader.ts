import { isProbablyReaderable, Readability } from '@mozilla/readability'
import TurndownService from 'turndown'

/**
 * The `reader` artifact: the page's main article as Markdown (Readability over a linkedom document, then turndown).
 * Empty when the page has no article-like content: Readability would otherwise return a page's scraps as an article.
 */
export const readerMarkdown = (document: Document, url: string): string => {
  // Readability changes the document it reads: read it last.
  // Readability resolves relative links against the document's base URL: give it the page's URL when the page has none.
  if (!document.querySelector('base[href]') && document.head) {
    const base = document.createElement('base')
    base.setAttribute('href', url)
    document.head.prepend(base)
  }
  if (!isProbablyReaderable(document)) return ''
  const article = new Readability(document, { keepClasses: false }).parse()
  if (!article?.content) return ''
  const body = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' }).turndown(article.content).trim()
  if (body === '') return ''
  const title = article.title?.trim()
  return `${title && !body.startsWith(`# ${title}`) ? `# ${title}\n\n` : ''}${body}\n`
}
