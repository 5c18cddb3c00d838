import type { JobOrigin } from './origin.js'

/**
 * Upcasts a JobRequested written before origins were recorded facts. Those events marked provenance in customer
 * fields: a monitor run by its idempotency token `monitor-run:<monitor>:<run>`, a content monitor's run by the tag
 * `content-monitor:<monitor>` (the job id is the run id), a user's scrape by the tag `scrape-by:<user>`, a recipe run
 * by its recipe block. The service submitted its runs and scrapes without an API key, so a marker on a job submitted
 * with a key was a customer's string and reads as a plain API job. Only events without `origin` are read this way:
 * every event written since carries the origin its command set, and no marker in a tag or token means anything there.
 */
export const legacyOrigin = (job: {
  readonly job_id: string
  readonly api_key_id: string | null
  readonly spec: { readonly tags: readonly string[]; readonly idempotency_token?: string | undefined; readonly recipe?: { readonly slug: string; readonly contract: number; readonly impl: number; readonly test_run: boolean } | undefined }
}): JobOrigin => {
  const recipe = job.spec.recipe
  if (recipe) return recipe.test_run ? { _tag: 'service', name: 'recipe-health' } : { _tag: 'recipe_run', slug: recipe.slug, contract: recipe.contract, impl: recipe.impl }
  if (job.api_key_id !== null) return { _tag: 'api' }
  const token = job.spec.idempotency_token
  if (token?.startsWith(MONITOR_RUN)) {
    const [monitorId, runId] = token.slice(MONITOR_RUN.length).split(':')
    if (monitorId && runId) return { _tag: 'monitor_run', monitor_id: monitorId, run_id: runId }
  }
  const tagged = (prefix: string) => job.spec.tags.find((tag) => tag.startsWith(prefix))?.slice(prefix.length)
  const contentMonitor = tagged(CONTENT_MONITOR)
  if (contentMonitor) return { _tag: 'content_monitor_run', monitor_id: contentMonitor, run_id: job.job_id }
  const user = tagged(SCRAPE_BY)
  if (user) return { _tag: 'scrape', user_id: user }
  return { _tag: 'service', name: 'unknown' }
}

const MONITOR_RUN = 'monitor-run:'
const CONTENT_MONITOR = 'content-monitor:'
const SCRAPE_BY = 'scrape-by:'

/** The stored data of a JobRequested as this version reads it: with `origin`, upcast when it was written without. */
export const upcastJobRequested = (data: Record<string, unknown>): Record<string, unknown> => {
  if ('origin' in data) return data
  const spec = data.spec as Parameters<typeof legacyOrigin>[0]['spec'] | undefined
  if (typeof data.job_id !== 'string' || typeof spec !== 'object' || spec === null || !Array.isArray(spec.tags)) return data
  const apiKeyId = typeof data.api_key_id === 'string' ? data.api_key_id : null
  return { ...data, origin: legacyOrigin({ job_id: data.job_id, api_key_id: apiKeyId, spec }) }
}
