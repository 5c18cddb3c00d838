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
  /** The document as the client ended up with it: response text on light, the rendered DOM on browser tiers. */
  readonly html?: string
  readonly responseBody?: Uint8Array
  readonly responseContentType?: string
}

/**
 * The artifacts every tier produces from a page: html, response_body and the extraction result (computed in a worker
 * thread, in the lane of the job's organization `orgId`).
 */
export const commonArtifacts = async (orgId: string, spec: JobSpec, page: PageContent): Promise<EngineArtifact[]> => {
  const artifacts: EngineArtifact[] = []
  const options = spec.artifact_options
  if (options.include_html && page.html !== undefined) {
    artifacts.push({ artifact_type: 'html', content_type: 'text/html; charset=utf-8', bytes: encoder.encode(page.html) })
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
      ...(page.responseBody ? { bodyBytes: page.responseBody } : {}),
    }, EXTRACTION_DEADLINE_MS)
    artifacts.push(jsonArtifact('json', valueOf(result, 'extraction')))
  }
  return artifacts
}
