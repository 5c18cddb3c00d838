import type { JobRequested } from '../job/events.js'
import type { ScrapeBackend, ScrapeRequested } from './events.js'
import { BACKEND_TIERS } from './request.js'

const BACKEND_OF_TIER = new Map(Object.entries(BACKEND_TIERS).map(([backend, tier]) => [tier, backend as ScrapeBackend]))

/**
 * The ScrapeRequested a scrape's admitted job implies, from the job's own JobRequested (null for other jobs): the
 * same fields POST /scrapes records, so recording it again from the job changes nothing, and a request that died
 * between admission and its ScrapeRequested still leaves a scrape that gets its result.
 */
export const scrapeOfJob = (job: JobRequested): Omit<ScrapeRequested, '_tag'> | null => {
  const backend = BACKEND_OF_TIER.get(job.spec.job_type)
  if (job.origin._tag !== 'scrape' || backend === undefined) return null
  const userId = job.origin.user_id
  return {
    scrape_id: job.job_id, job_id: job.job_id, user_id: userId, org_id: job.org_id, url: job.spec.target_url, backend,
    save_html: job.spec.artifact_options.include_html, take_screenshot: job.spec.artifact_options.include_screenshot,
    requested_at: job.requested_at,
  }
}
