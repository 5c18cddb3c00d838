import { BACKEND_TIERS } from '../scrape/request.js'
import type { ScrapeBackend } from '../scrape/events.js'

const TAG_PREFIX = 'content-monitor:'

/** The tag that ties a run's job to its monitor (the job id is the run id). */
export const monitorTag = (monitorId: string) => `${TAG_PREFIX}${monitorId}`
export const monitorOfTags = (tags: readonly string[]): string | null => tags.find((t) => t.startsWith(TAG_PREFIX))?.slice(TAG_PREFIX.length) ?? null

/** The job request of a monitor run: the page's HTML (and raw body on httpx), no screenshot. */
export const runJobRequest = (monitor: { readonly monitor_id: string; readonly url: string; readonly backend: ScrapeBackend }) => {
  const tier = BACKEND_TIERS[monitor.backend]
  return {
    job_type: tier, target_url: monitor.url, tags: [monitorTag(monitor.monitor_id)],
    artifact_options: { include_html: true, include_response_body: tier === 'light' },
  }
}
