import { Schema } from 'effect'

export const SCRAPE_BACKENDS = ['httpx', 'playwright', 'scrapling'] as const
export type ScrapeBackend = (typeof SCRAPE_BACKENDS)[number]

/**
 * Events of the `scrape-<id>` stream: an account-API scrape is a v1 job (same id) as seen by the user who asked for it.
 * The job's own stream holds the fetch; this one holds who asked, what they asked to see, and what they were answered.
 */
export class ScrapeRequested extends Schema.TaggedClass<ScrapeRequested>()('ScrapeRequested', {
  scrape_id: Schema.String,
  /** The v1 job doing the fetch; equal to scrape_id. */
  job_id: Schema.String,
  user_id: Schema.String,
  org_id: Schema.String,
  url: Schema.String,
  backend: Schema.Literal(...SCRAPE_BACKENDS),
  save_html: Schema.Boolean,
  take_screenshot: Schema.Boolean,
  requested_at: Schema.String,
}) {}

/** The job behind the scrape ended; recorded once, whether or not the waiting request was still there to see it. */
export class ScrapeCompleted extends Schema.TaggedClass<ScrapeCompleted>()('ScrapeCompleted', {
  scrape_id: Schema.String,
  job_succeeded: Schema.Boolean,
  status_code: Schema.NullOr(Schema.Number),
  /** The job's failure_reason and message on a failed job. */
  failure_reason: Schema.NullOr(Schema.String),
  failure_message: Schema.NullOr(Schema.String),
  /** The screenshot's blob (signed into short-lived URLs on read), when one was taken. */
  screenshot_blob_key: Schema.NullOr(Schema.String),
  completed_at: Schema.String,
}) {}

/** The request waited its whole budget (timeout + 15 s) and was answered 504; a later ScrapeCompleted still records the result. */
export class ScrapeWaitExpired extends Schema.TaggedClass<ScrapeWaitExpired>()('ScrapeWaitExpired', {
  scrape_id: Schema.String,
  waited_seconds: Schema.Number,
  expired_at: Schema.String,
}) {}

export const ScrapeEvent = Schema.Union(ScrapeRequested, ScrapeCompleted, ScrapeWaitExpired)
export type ScrapeEvent = typeof ScrapeEvent.Type
