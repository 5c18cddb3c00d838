import type { ScrapeBackend } from '../domain/scrape/events.js'
import { SCRAPE_TIMEOUT_CODE, scrapeErrorCode } from '../domain/scrape/outcome.js'
import { collection, defineProjection, updateDoc, type Stored } from './projection.js'

export type ScrapeStatus = 'pending' | 'succeeded' | 'failed'

/** An account-API scrape as GET /scrapes lists it. */
export type ScrapeDoc = Stored<{
  readonly scrape_id: string
  readonly job_id: string
  readonly user_id: string
  readonly org_id: string
  readonly url: string
  readonly backend: ScrapeBackend
  readonly save_html: boolean
  readonly take_screenshot: boolean
  readonly status: ScrapeStatus
  readonly status_code: number | null
  readonly error_code: string | null
  readonly error_message: string | null
  readonly screenshot_blob_key: string | null
  readonly created_at: string
  readonly completed_at: string | null
}>

export const SCRAPES = collection<ScrapeDoc>('scrapes')
/**
 * Jobs purged (SPEC 3.7): their scrapes leave GET /scrapes, and a scrape event delivered again or replayed after the
 * purge (another stream, so in any order) never brings one back.
 */
export const PURGED_SCRAPE_JOBS = collection<Stored<{ readonly purged_at: string }>>('scrapes_purged_jobs')

export const scrapesProjection = defineProjection({
  name: 'projection.scrapes',
  categories: ['scrape', 'job'],
  collections: [SCRAPES.name, PURGED_SCRAPE_JOBS.name],
  indexes: [
    { collection: SCRAPES.name, fields: [['job_id', 1]] },
    { collection: SCRAPES.name, fields: [['org_id', 1], ['created_at', -1]] },
    { collection: SCRAPES.name, fields: [['org_id', 1], ['completed_at', -1]] },
    { collection: SCRAPES.name, fields: [['org_id', 1], ['status', 1]] },
  ],
  // A scrape's document takes events of two streams (its scrape's, and its job's purge), and the purge memory is
  // written by one and read by the other: applied side by side, a purge could miss a scrape being created and the
  // scrape miss the purge. One at a time, each sees what the other left, in whatever order they come.
  concurrency: 1,
  ordering: 'stream',
  fold: (event, envelope, view) => {
    switch (event._tag) {
      case 'ScrapeRequested':
        if (view.get(PURGED_SCRAPE_JOBS, event.job_id)) return
        return updateDoc(view, SCRAPES, event.scrape_id, envelope, () => ({
          scrape_id: event.scrape_id, job_id: event.job_id, user_id: event.user_id, org_id: event.org_id, url: event.url,
          backend: event.backend, save_html: event.save_html, take_screenshot: event.take_screenshot, status: 'pending' as const,
          status_code: null, error_code: null, error_message: null, screenshot_blob_key: null, created_at: event.requested_at, completed_at: null,
        }))
      case 'ScrapeWaitExpired':
        return updateDoc(view, SCRAPES, event.scrape_id, envelope, (doc) => doc && doc.status === 'pending' ? {
          ...doc, status: 'failed' as const, error_code: SCRAPE_TIMEOUT_CODE,
          error_message: `no result within ${event.waited_seconds} s (timeout + 15 s); the job's late result is recorded here when it ends`,
        } : doc)
      case 'ScrapeCompleted':
        return updateDoc(view, SCRAPES, event.scrape_id, envelope, (doc) => {
          if (!doc) return null
          const late = { ...doc, status_code: event.status_code, screenshot_blob_key: event.screenshot_blob_key, completed_at: event.completed_at }
          // After a 504 the scrape stays failed/timeout (what its caller was told); the late result is still recorded.
          if (doc.status !== 'pending') return late
          return event.job_succeeded
            ? { ...late, status: 'succeeded' as const }
            : { ...late, status: 'failed' as const, error_code: scrapeErrorCode(event.failure_reason ?? 'engine_error'), error_message: event.failure_message }
        })
      case 'JobPurged':
        view.put(PURGED_SCRAPE_JOBS, { _id: event.job_id, _position: envelope.position, purged_at: event.purged_at })
        // The scrapes of the job, through its index.
        for (const doc of view.find(SCRAPES, { job_id: event.job_id })) view.delete(SCRAPES, doc._id)
        return
      default:
        return
    }
  },
})
