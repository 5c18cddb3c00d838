import type { JobRequested } from '../job/events.js'
import type { JobSpec } from '../job/spec.js'
import type { ScrapeBackend, ScrapeRequested } from './events.js'
import { BACKEND_TIERS } from './request.js'

const REQUESTER_TAG_PREFIX = 'scrape-by:'

/** The tag that marks a job as a user's scrape (the job id is the scrape id): its admission event then names the user. */
export const scrapeRequesterTag = (userId: string) => `${REQUESTER_TAG_PREFIX}${userId}`

const BACKEND_OF_TIER = new Map(Object.entries(BACKEND_TIERS).map(([backend, tier]) => [tier, backend as ScrapeBackend]))

/** Whether a job may be a scrape's: its spec names the user who asked for it (every scrape's job does). */
export const isScrapeJob = (spec: JobSpec) => spec.tags.some((tag) => tag.startsWith(REQUESTER_TAG_PREFIX))

/**
 * The ScrapeRequested a scrape's admitted job implies, from the job's own JobRequested (null for other jobs): the
 * same fields POST /scrapes records, so recording it again from the job changes nothing, and a request that died
 * between admission and its ScrapeRequested still leaves a scrape that gets its result.
 */
export const scrapeOfJob = (job: JobRequested): Omit<ScrapeRequested, '_tag'> | null => {
  const userId = job.spec.tags.find((tag) => tag.startsWith(REQUESTER_TAG_PREFIX))?.slice(REQUESTER_TAG_PREFIX.length)
  const backend = BACKEND_OF_TIER.get(job.spec.job_type)
  if (userId === undefined || backend === undefined) return null
  return {
    scrape_id: job.job_id, job_id: job.job_id, user_id: userId, org_id: job.org_id, url: job.spec.target_url, backend,
    save_html: job.spec.artifact_options.include_html, take_screenshot: job.spec.artifact_options.include_screenshot,
    requested_at: job.requested_at,
  }
}
