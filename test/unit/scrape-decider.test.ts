/** The scrape decider given/when/then: every command, and its one rejection. */
import t from 'tap'
import { scrapeDecider, type ScrapeCommand } from '../../domain/scrape/decider.js'
import { ScrapeCompleted, ScrapeRequested, ScrapeWaitExpired } from '../../domain/scrape/events.js'
import { scenario } from '../helpers/given-when-then.js'

const given = scenario(t, scrapeDecider)
const NOW = '2026-01-01T12:00:00.000Z'
const LATER = '2026-01-01T12:00:40.000Z'

const requestFields = {
  scrape_id: 's1', job_id: 's1', user_id: 'u1', org_id: 'o1', url: 'https://example.com/', backend: 'httpx',
  save_html: true, take_screenshot: false, requested_at: NOW,
} as const
const completionFields = {
  scrape_id: 's1', job_succeeded: true, status_code: 200, failure_reason: null, failure_message: null, screenshot_blob_key: null, completed_at: LATER,
}
const request: ScrapeCommand = { _tag: 'RequestScrape', ...requestFields, now: NOW }
const complete: ScrapeCommand = { _tag: 'CompleteScrape', ...completionFields, now: LATER }
const expire: ScrapeCommand = { _tag: 'ExpireScrapeWait', scrape_id: 's1', waited_seconds: 40, now: LATER }

const requested = new ScrapeRequested(requestFields)
const completed = new ScrapeCompleted(completionFields)
const expired = new ScrapeWaitExpired({ scrape_id: 's1', waited_seconds: 40, expired_at: LATER })

// ---- RequestScrape ----
given([]).when(request).then([requested], 'RequestScrape records what the user asked to see (the command instant is not part of it)')
given([requested]).when({ ...request, url: 'https://example.com/other' }).then([], 'RequestScrape again (the recorder\'s repair): the first record stays')

// ---- CompleteScrape ----
given([requested]).when(complete).then([completed], 'CompleteScrape records the job\'s result')
given([requested, expired]).when(complete).then([completed], 'CompleteScrape after the wait expired still records the result')
given([requested, completed]).when({ ...complete, status_code: 500 }).then([], 'CompleteScrape again (request and recorder both report): recorded once')
given([]).when(complete).then({ _tag: 'NotFound', resource: 'scrape', id: 's1' }, 'CompleteScrape of an unknown scrape is not found')

// ---- ExpireScrapeWait ----
given([requested]).when(expire).then([expired], 'ExpireScrapeWait records the expiry at the command\'s instant')
given([requested, expired]).when(expire).then([], 'ExpireScrapeWait twice records it once')
given([requested, completed]).when(expire)
  .then({ _tag: 'StateConflict', code: 'scrape_completed' }, 'ExpireScrapeWait on a completed scrape conflicts: the caller gets the result instead')
given([]).when(expire).then({ _tag: 'NotFound', resource: 'scrape' }, 'ExpireScrapeWait of an unknown scrape is not found')
