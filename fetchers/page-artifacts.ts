import { isUtf8 } from 'node:buffer'
import type { JobSpec } from '../domain/job/spec.js'
import type { EngineArtifact } from './engine.js'
import { EXTRACTION_DEADLINE_MS, offThread, type PoolOutcome } from './workers/index.js'

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
}

/**
 * The html artifact's UTF-8 bytes of a response body: the body itself when it is UTF-8 without a byte order mark
 * (checked without decoding it), else its text as decoding it as UTF-8 gives it (a BOM dropped, bad bytes replaced).
 */
const htmlOfBody = (body: Uint8Array): Uint8Array =>
  isUtf8(body) && !(body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) ? body : encoder.encode(new TextDecoder().decode(body))

/**
 * The artifacts every tier produces from a page: html, response_body and the extraction result (computed in a worker
 * thread, in the lane of the job's organization `orgId`).
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
