import type { JobSpec } from '../job/spec.js'
import type { DetectionConfig, DetectionMode } from './detection-config.js'

/**
 * Where each detection mode reads a run's content: the job artifact and the artifact options that make the job store
 * what it needs. text and selector read the page; text also keeps the raw response body, so a JSON or plain-text
 * answer (for which the light tier makes no page) is compared by its content type (normalize.ts, normalizeBody). json
 * reads the raw body, extract the extraction result.
 */
type ArtifactOption = 'include_html' | 'include_response_body' | 'include_extraction'
export const DETECTION_SOURCES: Readonly<Record<DetectionMode, { readonly artifact_type: string; readonly options: readonly ArtifactOption[] }>> = {
  text: { artifact_type: 'html', options: ['include_html', 'include_response_body'] },
  selector: { artifact_type: 'html', options: ['include_html'] },
  json: { artifact_type: 'response_body', options: ['include_response_body'] },
  extract: { artifact_type: 'json', options: ['include_extraction'] },
}

/** The natural key of one monitor run's job: the job id derives from it, so a run submits one job however often it is minted. */
export const monitorRunKey = (monitorId: string, runId: string) => `monitor-run:${monitorId}:${runId}`

/**
 * The job one monitor run submits: the monitor's job, asking for the artifact its detection mode reads (whatever the
 * monitor's own artifact options say), so a delivered run can always be compared.
 */
export const monitorRunJob = (job: JobSpec, detection: DetectionConfig): JobSpec => {
  if (!detection.enabled) return job
  const wanted = Object.fromEntries(DETECTION_SOURCES[detection.mode].options.map((option) => [option, true]))
  return { ...job, artifact_options: { ...job.artifact_options, ...wanted } }
}
