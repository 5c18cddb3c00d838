import { isUtf8 } from 'node:buffer'
import type { JobSpec } from '../domain/job/spec.js'
import type { EngineArtifact } from './engine.js'
import { MAX_BODY_BYTES } from './body-limit.js'
import type { PageView } from './page-views/index.js'
import { EXTRACTION_DEADLINE_MS, offThread, PAGE_VIEWS_DEADLINE_MS, type PoolOutcome } from './workers/index.js'

const encoder = new TextEncoder()

export const jsonArtifact = (artifact_type: string, value: unknown): EngineArtifact =>
  ({ artifact_type, content_type: 'application/json', bytes: encoder.encode(JSON.stringify(value)) })

export const isHtml = (contentType: string | undefined) => !contentType || /html|xml/i.test(contentType)

/**
 * Work a job's page needed (extraction hooks, the reader artifact) ran past its worker's hard deadline
 * (`extraction_timeout`) or its worker died, e.g. at its memory cap (`extraction_failed`): the job fails with
 * `reason` as its failure_reason (docs/limits.md).
 */
export class PageWorkFailed extends Error {
  constructor(readonly reason: 'extraction_timeout' | 'extraction_failed', message: string) { super(message) }
}

/** The value of work done in a worker, or PageWorkFailed. */
export const valueOf = <T>(outcome: PoolOutcome<T>, what: string): T => {
  if (outcome.ok) return outcome.value
  throw new PageWorkFailed(outcome.reason === 'timeout' ? 'extraction_timeout' : 'extraction_failed', `${what}: ${outcome.message}`)
}

export interface PageContent {
  readonly url: string
  /** The rendered DOM of a browser tier. */
  readonly html?: string
  /** The light tier's document is its response body (an HTML or XML response, or one without a type). */
  readonly bodyIsHtml?: boolean
  readonly responseBody?: Uint8Array
  readonly responseContentType?: string
  /** Views a browser read from its live DOM (visible text, links): made from the markup only when absent. */
  readonly text?: string
  readonly links?: readonly string[]
}

const PAGE_VIEW_OPTIONS = [
  ['reader', 'include_reader'], ['text', 'include_text'], ['links', 'include_links'], ['page_metadata', 'include_page_metadata'],
] as const

/**
 * The html artifact's UTF-8 bytes of a response body: the body itself when it is UTF-8 without a byte order mark
 * (checked without decoding it), else its text as decoding it as UTF-8 gives it (a BOM dropped, bad bytes replaced).
 */
const htmlOfBody = (body: Uint8Array): Uint8Array =>
  isUtf8(body) && !(body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) ? body : encoder.encode(new TextDecoder().decode(body))

/**
 * The artifacts every tier produces from a page: html, response_body, the page's views (reader, text, links,
 * page_metadata) and the extraction result. Views and extraction are computed in a worker thread, in the lane of the
 * job's organization `orgId`; a light job's views need an HTML response (there are none of another content type).
 */
export const commonArtifacts = async (orgId: string, spec: JobSpec, page: PageContent): Promise<EngineArtifact[]> => {
  const artifacts: EngineArtifact[] = []
  const options = spec.artifact_options
  if (options.include_html) {
    const html = page.html !== undefined ? encoder.encode(page.html) : page.bodyIsHtml && page.responseBody ? htmlOfBody(page.responseBody) : undefined
    if (html !== undefined) artifacts.push({ artifact_type: 'html', content_type: 'text/html; charset=utf-8', bytes: html })
  }
  if (options.include_response_body && page.responseBody) {
    artifacts.push({ artifact_type: 'response_body', content_type: page.responseContentType ?? 'application/octet-stream', bytes: page.responseBody })
  }
  const fromDom: Partial<Record<PageView, unknown>> = { text: page.text, links: page.links }
  const want: PageView[] = PAGE_VIEW_OPTIONS.filter(([view, option]) => options[option] && fromDom[view] === undefined).map(([view]) => view)
  if (page.text !== undefined && options.include_text) artifacts.push({ artifact_type: 'text', content_type: 'text/plain; charset=utf-8', bytes: encoder.encode(page.text) })
  if (page.links !== undefined && options.include_links) artifacts.push(jsonArtifact('links', page.links))
  const markup = page.html !== undefined ? { html: page.html } : page.bodyIsHtml && page.responseBody ? { bodyBytes: page.responseBody } : undefined
  if (want.length > 0 && markup) {
    const views = await offThread(orgId, 'page_views', { ...markup, url: page.url, want, maxChars: MAX_BODY_BYTES }, PAGE_VIEWS_DEADLINE_MS)
    artifacts.push(...valueOf(views, `the ${want.join(', ')} artifacts`))
  }
  if (options.include_extraction && spec.extraction) {
    const result = await offThread(orgId, 'extract', {
      spec: spec.extraction,
      page: {
        url: page.url,
        ...(page.html !== undefined ? { html: page.html } : {}),
        ...(page.responseContentType ? { contentType: page.responseContentType } : {}),
      },
      ...(page.responseBody ? { bodyBytes: page.responseBody, ...(page.bodyIsHtml ? { bodyIsHtml: true } : {}) } : {}),
    }, EXTRACTION_DEADLINE_MS)
    artifacts.push({ artifact_type: 'json', content_type: 'application/json', bytes: valueOf(result, 'extraction') })
  }
  return artifacts
}
