import type { JobSpec } from '../job/spec.js'
import type { DetectionConfig, DetectionMode } from './detection-config.js'

/**
 * Where each detection mode reads a run's content: the job artifact and the artifact option that makes the job store
 * it. text and selector read the page, json the raw response body, extract the extraction result.
 */
export const DETECTION_SOURCES: Readonly<Record<DetectionMode, { readonly artifact_type: string; readonly option: 'include_html' | 'include_response_body' | 'include_extraction' }>> = {
  text: { artifact_type: 'html', option: 'include_html' },
  selector: { artifact_type: 'html', option: 'include_html' },
  json: { artifact_type: 'response_body', option: 'include_response_body' },
  extract: { artifact_type: 'json', option: 'include_extraction' },
}

/** The natural key of one monitor run's job: the job id derives from it, so a run submits one job however often it is minted. */
export const monitorRunKey = (monitorId: string, runId: string) => `monitor-run:${monitorId}:${runId}`

/**
 * The job one monitor run submits: the monitor's job, asking for the artifact its detection mode reads (whatever the
 * monitor's own artifact options say), so a delivered run can always be compared.
 */
export const monitorRunJob = (job: JobSpec, detection: DetectionConfig): JobSpec => {
  if (!detection.enabled) return job
  return { ...job, artifact_options: { ...job.artifact_options, [DETECTION_SOURCES[detection.mode].option]: true } }
}
