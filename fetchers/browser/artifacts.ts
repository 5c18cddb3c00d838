import type { JobSpec } from '../../domain/job/spec.js'
import type { EngineArtifact } from '../engine.js'
import { commonArtifacts, jsonArtifact } from '../page-artifacts.js'
import type { HarRecorder } from './har.js'
import type { Capture } from './page-job.js'

/**
 * Every artifact a browser job asked for. html, the page's views and the extraction hooks work on the rendered DOM
 * (commonArtifacts gets it as `html`, with the text and links read from the live page); the browser-only outputs follow.
 */
export const browserArtifacts = async (
  orgId: string, spec: JobSpec, capture: Capture, responseBody: { bytes: Uint8Array; contentType?: string } | undefined, har: { recorder: HarRecorder; startedAt: number; onLoadMs: number; browser: { name: string; version: string } } | undefined,
): Promise<EngineArtifact[]> => {
  const options = spec.artifact_options
  const artifacts = await commonArtifacts(orgId, spec, {
    url: capture.url, html: capture.html,
    ...(capture.text !== undefined ? { text: capture.text } : {}), ...(capture.links !== undefined ? { links: capture.links } : {}),
    ...(responseBody ? { responseBody: responseBody.bytes, ...(responseBody.contentType ? { responseContentType: responseBody.contentType } : {}) } : {}),
  })
  if (options.include_screenshot && capture.screenshot) artifacts.push({ artifact_type: 'screenshot', content_type: 'image/png', bytes: capture.screenshot })
  if (options.include_pdf && capture.pdf) artifacts.push({ artifact_type: 'pdf', content_type: 'application/pdf', bytes: capture.pdf })
  if (options.include_har && har) {
    artifacts.push(jsonArtifact('har', har.recorder.toHar({ title: capture.title, startedAt: har.startedAt, onLoadMs: har.onLoadMs }, har.browser)))
  }
  if (options.include_console) artifacts.push(jsonArtifact('console', capture.console ?? []))
  return artifacts
}
