import { Pool } from 'undici'

/**
 * The benches' client of the service's API: undici's `request` on a pool of kept-alive connections, which costs the
 * bench a fraction of the CPU of the global `fetch` (WHATWG streams and Request/Response objects per call). The bench
 * shares the machine with the service, so what its client spends is taken from the service being measured.
 */
export const serviceClient = (base: string, headers: Record<string, string>, connections: number) => {
  const pool = new Pool(base, { connections, pipelining: 1 })
  const submitJob = async (job: Record<string, unknown>): Promise<string> => {
    const res = await pool.request({ method: 'POST', path: '/v1/jobs', headers, body: JSON.stringify(job) })
    const body = (await res.body.json()) as { job_id?: string }
    if (res.statusCode !== 202) throw new Error(`submitting a job answered ${res.statusCode}: ${JSON.stringify(body)}`)
    return body.job_id!
  }
  /** Waits for a job's result with the long poll (`?wait=60`) and fails unless the job succeeded. */
  const awaitSucceededResult = async (jobId: string) => {
    const res = await pool.request({ method: 'GET', path: `/v1/jobs/${jobId}/result?wait=60`, headers })
    const body = (await res.body.json()) as { status: string }
    if (res.statusCode !== 200 || body.status !== 'succeeded') throw new Error(`result of ${jobId} answered ${res.statusCode}: ${JSON.stringify(body)}`)
  }
  return { submitJob, awaitSucceededResult, close: () => pool.close() }
}
