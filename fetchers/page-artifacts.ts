import type { JobSpec } from '../domain/job/spec.js'
import type { EngineArtifact } from './engine.js'
import { runExtraction } from './extraction/index.js'

const encoder = new TextEncoder()

export const jsonArtifact = (artifact_type: string, value: unknown): EngineArtifact =>
  ({ artifact_type, content_type: 'application/json', bytes: encoder.encode(JSON.stringify(value)) })

export const isHtml = (contentType: string | undefined) => !contentType || /html|xml/i.test(contentType)

export interface PageContent {
  readonly url: string
  /** The document as the client ended up with it: response text on light, the rendered DOM on browser tiers. */
  readonly html?: string
  readonly responseBody?: Uint8Array
  readonly responseContentType?: string
}

/** The artifacts every tier produces from a page: html, response_body and the extraction result. */
export const commonArtifacts = async (spec: JobSpec, page: PageContent): Promise<EngineArtifact[]> => {
  const artifacts: EngineArtifact[] = []
  const options = spec.artifact_options
  if (options.include_html && page.html !== undefined) {
    artifacts.push({ artifact_type: 'html', content_type: 'text/html; charset=utf-8', bytes: encoder.encode(page.html) })
  }
  if (options.include_response_body && page.responseBody) {
    artifacts.push({ artifact_type: 'response_body', content_type: page.responseContentType ?? 'application/octet-stream', bytes: page.responseBody })
  }
  if (options.include_extraction && spec.extraction) {
    const body = page.responseBody ? new TextDecoder().decode(page.responseBody) : undefined
    const result = await runExtraction(spec.extraction, {
      url: page.url,
      ...(page.html !== undefined ? { html: page.html } : {}),
      ...(body !== undefined ? { body } : {}),
      ...(page.responseContentType ? { contentType: page.responseContentType } : {}),
    })
    artifacts.push(jsonArtifact('json', result))
  }
  return artifacts
}
