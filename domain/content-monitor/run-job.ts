import { BACKEND_TIERS } from '../scrape/request.js'
import type { ScrapeBackend } from '../scrape/events.js'

/** The job request of a monitor run: the page's HTML (and raw body on httpx), no screenshot. */
export const runJobRequest = (monitor: { readonly monitor_id: string; readonly url: string; readonly backend: ScrapeBackend }) => {
  const tier = BACKEND_TIERS[monitor.backend]
  return {
    job_type: tier, target_url: monitor.url, tags: [],
    artifact_options: { include_html: true, include_response_body: tier === 'light' },
  }
}
