/** Waits for a job's result with the long poll (`?wait=60`) and fails unless the job succeeded. */
export const awaitSucceededResult = async (base: string, jobId: string, headers: Record<string, string>) => {
  const result = await fetch(`${base}/v1/jobs/${jobId}/result?wait=60`, { headers })
  const body = (await result.json()) as { status: string }
  if (result.status !== 200 || body.status !== 'succeeded') throw new Error(`result of ${jobId} answered ${result.status}: ${JSON.stringify(body)}`)
}
