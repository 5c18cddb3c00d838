import type { Test } from 'tap'
import { handle } from '../../../commands/handle.js'
import { scrapeDecider, type ScrapeCommand } from '../../../domain/scrape/decider.js'
import { JobPurged } from '../../../domain/job/events.js'
import type { ScrapeBackend } from '../../../domain/scrape/events.js'
import { STREAMS } from '../../../domain/streams.js'
import type { Doc } from '../../../ports/document-store.js'
import type { RecordedEvent } from '../../../ports/event-store.js'
import { memoryServices, newEvents, TEST_METADATA } from '../../helpers/memory-services.js'
import type { Documents, ProjectionSpecFile } from '../../helpers/projection-spec.js'

// ---- account-API scrapes: a success with a screenshot, a target failure, a pipeline failure, a 504 with a late result, one pending, one purged ----

const ORG = 'org-s'
const USER = 'user-s'
const at = (minute: number, second = 0) => new Date(Date.UTC(2026, 4, 1, 9, minute, second)).toISOString()

type WithoutScrapeId<C> = C extends unknown ? Omit<C, 'scrape_id'> : never

const recordHistory = async (): Promise<readonly RecordedEvent[]> => {
  const { run, events } = memoryServices()
  const scrape = (id: string) => (c: WithoutScrapeId<ScrapeCommand>) =>
    run(handle(scrapeDecider, STREAMS.scrape.stream(id), { ...c, scrape_id: id } as ScrapeCommand, { org_id: ORG, metadata: { ...TEST_METADATA, actor: `user:${USER}` } }))
  const request = (id: string, backend: ScrapeBackend, minute: number, takeScreenshot = false) => scrape(id)({
    _tag: 'RequestScrape', job_id: id, user_id: USER, org_id: ORG, url: `https://example.com/${id}`, backend,
    save_html: true, take_screenshot: takeScreenshot, requested_at: at(minute), now: at(minute),
  })
  const succeed = (statusCode: number, screenshot: string | null, minute: number, second = 0) => ({
    _tag: 'CompleteScrape' as const, job_succeeded: true, status_code: statusCode, failure_reason: null, failure_message: null,
    screenshot_blob_key: screenshot, completed_at: at(minute, second), now: at(minute, second),
  })
  const fail = (reason: string, message: string, minute: number) => ({
    _tag: 'CompleteScrape' as const, job_succeeded: false, status_code: null, failure_reason: reason, failure_message: message,
    screenshot_blob_key: null, completed_at: at(minute), now: at(minute),
  })

  await request('s1', 'playwright', 1, true)
  await request('s2', 'httpx', 1)
  await request('s3', 'scrapling', 2)
  await scrape('s1')(succeed(200, `scrapes/${ORG}/s1/screenshot.png`, 2))
  // The waiting request and the recorder both report the result: it is recorded once.
  await scrape('s1')(succeed(200, `scrapes/${ORG}/s1/screenshot.png`, 2, 30))
  await scrape('s2')(fail('dns_error', 'the host name does not resolve', 3))
  await scrape('s3')(fail('browser_crashed', 'the browser exited during navigation', 4))
  await request('s4', 'httpx', 5)
  await scrape('s4')({ _tag: 'ExpireScrapeWait', waited_seconds: 45, now: at(5, 45) })
  await scrape('s4')(succeed(201, null, 7))
  await request('s5', 'httpx', 8)
  // s6's job is purged (retention or a deletion request): the scrape leaves the read model for good.
  await request('s6', 'httpx', 9)
  await scrape('s6')(succeed(200, null, 9, 30))
  await run(events.append(STREAMS.job.stream('s6'), newEvents(ORG, [new JobPurged({ job_id: 's6', reason: 'retention_expired', purged_at: at(20) })]), 'any'))
  return run(events.readAll(0, 10_000))
}

const byId = (docs: readonly Doc[], id: string) => docs.find((d) => d._id === id)

const expectations: Readonly<Record<string, (t: Test, documents: Documents) => void>> = {
  'projection.audit': (t, { audit }) => {
    t.equal(audit!.filter((entry) => entry.type === 'ScrapeRequested').length, 6, 'every scrape requested')
    t.match(audit!.find((entry) => entry.type === 'ScrapeRequested' && (entry.detail as { scrape_id: string }).scrape_id === 's1'), { org_id: ORG, actor: `user:${USER}`, detail: { backend: 'playwright' } })
    t.match(audit!.find((entry) => entry.type === 'JobPurged'), { org_id: ORG, detail: { job_id: 's6', reason: 'retention_expired' } })
  },
  'projection.scrapes': (t, { scrapes, scrapes_purged_jobs }) => {
    t.same(scrapes!.map((s) => [s._id, s.status]), [['s1', 'succeeded'], ['s2', 'failed'], ['s3', 'failed'], ['s4', 'failed'], ['s5', 'pending']],
      'a scrape whose job was purged is gone, whatever order the streams arrive in')
    t.same(scrapes_purged_jobs!.map((d) => d._id), ['s6'], 'the purge is remembered')
    t.match(byId(scrapes!, 's1'), {
      user_id: USER, org_id: ORG, job_id: 's1', backend: 'playwright', take_screenshot: true, status_code: 200, error_code: null, error_message: null,
      screenshot_blob_key: `scrapes/${ORG}/s1/screenshot.png`, created_at: at(1), completed_at: at(2),
    }, 'the first completion is the one recorded')
    t.match(byId(scrapes!, 's2'), { error_code: 'dns_error', error_message: 'the host name does not resolve', status_code: null, completed_at: at(3) },
      'a target failure reports its own reason')
    t.match(byId(scrapes!, 's3'), { error_code: 'gateway_error', error_message: 'the browser exited during navigation' }, 'a pipeline failure is a gateway error')
    t.match(byId(scrapes!, 's4'), { error_code: 'timeout', status_code: 201, completed_at: at(7) },
      'after a 504 the scrape stays failed/timeout, with its late result recorded')
    t.match(byId(scrapes!, 's4')!.error_message, /no result within 45 s/)
    t.match(byId(scrapes!, 's5'), { status: 'pending', status_code: null, error_code: null, completed_at: null, created_at: at(8) })
  },
}

/** The account-API scrapes read model over requests, results, failures, and a wait that expired before its result. */
export const spec: ProjectionSpecFile = { history: recordHistory, expectations }
