import { parseHTML } from 'linkedom'
import type { EngineArtifact } from '../engine.js'
import { linksOf } from './links.js'
import { pageMetadata } from './metadata.js'
import { readerMarkdown } from './reader.js'
import { visibleTextOf } from './text.js'

/**
 * The views of a page made from its markup, the same on every tier: `reader` (the article as Markdown) and
 * `page_metadata` everywhere, `text` and `links` where no browser rendered the page (a browser tier reads those from
 * its live DOM). They run in a worker of the CPU pool (workers/tasks.ts), never on the main thread.
 */
export const PAGE_VIEWS = ['reader', 'text', 'links', 'page_metadata'] as const
export type PageView = (typeof PAGE_VIEWS)[number]

const encoder = new TextEncoder()
const json = (artifact_type: string, value: unknown): EngineArtifact => ({ artifact_type, content_type: 'application/json', bytes: encoder.encode(JSON.stringify(value)) })

/** The artifacts of the views asked for, from one parse of the page; `maxChars` caps text and links as the browser tiers do. */
export const pageViews = (html: string, url: string, want: readonly PageView[], maxChars: number): EngineArtifact[] => {
  const { document } = parseHTML(html)
  const doc = document as unknown as Document
  const base = doc.querySelector('base[href]')?.getAttribute('href')
  let baseUrl = url
  try { if (base) baseUrl = new URL(base, url).href } catch { /* a broken base leaves the page's URL */ }
  const artifacts: EngineArtifact[] = []
  // Readability changes the document it reads, so the reader comes last.
  if (want.includes('page_metadata')) artifacts.push(json('page_metadata', pageMetadata(doc, url)))
  if (want.includes('links')) artifacts.push(json('links', linksOf(doc, baseUrl, maxChars)))
  if (want.includes('text')) artifacts.push({ artifact_type: 'text', content_type: 'text/plain; charset=utf-8', bytes: encoder.encode(visibleTextOf(doc as never, maxChars)) })
  if (want.includes('reader')) artifacts.push({ artifact_type: 'reader', content_type: 'text/markdown; charset=utf-8', bytes: encoder.encode(readerMarkdown(doc, url)) })
  return artifacts
}
