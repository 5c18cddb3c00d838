import type { JobSpec } from '../../domain/job/spec.js'
import type { EngineArtifact } from '../engine.js'
import { commonArtifacts, jsonArtifact, valueOf } from '../page-artifacts.js'
import { offThread, READER_DEADLINE_MS } from '../workers/index.js'
import type { HarRecorder } from './har.js'
import type { Capture } from './page-job.js'
import { pageMetadata } from './page-metadata.js'

const encoder = new TextEncoder()
const textArtifact = (artifact_type: string, content_type: string, text: string): EngineArtifact =>
  ({ artifact_type, content_type, bytes: encoder.encode(text) })

/**
 * Every artifact a browser job asked for. html and the extraction hooks work on the rendered DOM (commonArtifacts
 * gets it as `html`); the browser-only outputs follow.
 */
export const browserArtifacts = async (
  orgId: string, spec: JobSpec, capture: Capture, responseBody: { bytes: Uint8Array; contentType?: string } | undefined, har: { recorder: HarRecorder; startedAt: number; onLoadMs: number; browser: { name: string; version: string } } | undefined,
): Promise<EngineArtifact[]> => {
  const options = spec.artifact_options
  const artifacts = await commonArtifacts(orgId, spec, {
    url: capture.url, html: capture.html,
    ...(responseBody ? { responseBody: responseBody.bytes, ...(responseBody.contentType ? { responseContentType: responseBody.contentType } : {}) } : {}),
  })
  if (options.include_screenshot && capture.screenshot) artifacts.push({ artifact_type: 'screenshot', content_type: 'image/png', bytes: capture.screenshot })
  if (options.include_har && har) {
    artifacts.push(jsonArtifact('har', har.recorder.toHar({ title: capture.title, startedAt: har.startedAt, onLoadMs: har.onLoadMs }, har.browser)))
  }
  if (options.include_reader) {
    const reader = valueOf(await offThread(orgId, 'reader', { html: capture.html, url: capture.url }, READER_DEADLINE_MS), 'the reader artifact')
    artifacts.push(textArtifact('reader', 'text/markdown; charset=utf-8', reader))
  }
  if (options.include_links) artifacts.push(jsonArtifact('links', capture.links ?? []))
  if (options.include_text) artifacts.push(textArtifact('text', 'text/plain; charset=utf-8', capture.text ?? ''))
  if (options.include_page_metadata) artifacts.push(jsonArtifact('page_metadata', pageMetadata(capture.html, capture.url)))
  if (options.include_console) artifacts.push(jsonArtifact('console', capture.console ?? []))
  return artifacts
}
