import type { Api } from './http.js'
import { ApiError, EXIT } from './http.js'

/** How long one long poll of the result asks the service to hold it (the service's RESULT_WAIT_MAX_SECONDS is 60 by default). */
const WAIT_SECONDS = 20

export type Progress = (line: string) => void

/**
 * The result of a job once it ended, long-polling GET /v1/jobs/{id}/result?wait=; each change of the job's status
 * is told to `progress` (stderr), so a user waiting on a browser job sees it move.
 */
export const awaitResult = async (api: Api, jobId: string, progress: Progress): Promise<any> => {
  const started = Date.now()
  let told = ''
  for (;;) {
    const answer = await api.call('GET', `/v1/jobs/${encodeURIComponent(jobId)}/result?wait=${WAIT_SECONDS}`, undefined, [409])
    if (answer.status === 200) return answer.body
    const job = await api.call('GET', `/v1/jobs/${encodeURIComponent(jobId)}`)
    if (job.body.status !== told) {
      told = job.body.status
      progress(`job ${jobId} ${told} (${Math.round((Date.now() - started) / 1000)} s)`)
    }
  }
}

/** The bytes of a job's artifact, through its signed download link. */
export const artifactBytes = async (api: Api, jobId: string, artifactId: string): Promise<Uint8Array> => {
  const link = await api.call('GET', `/v1/jobs/${encodeURIComponent(jobId)}/artifacts/${encodeURIComponent(artifactId)}`)
  return api.download(link.body.url)
}

/** Fails with the job's failure as a one-line error. */
export const requireSucceeded = (job: any) => {
  if (job.status !== 'succeeded') throw new ApiError(`job ${job.job_id} failed: ${job.failure_reason ?? 'unknown'}: ${job.failure_message ?? ''}`.trim(), EXIT.failed)
}
