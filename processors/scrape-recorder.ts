import { Effect } from 'effect'
import { jobEnd } from '../commands/job-ends.js'
import { completeScrape, recordScrapeRequested } from '../commands/scrapes.js'
import type { JobRequested } from '../domain/job/events.js'
import { scrapeOfJob } from '../domain/scrape/job-origin.js'
import { STREAMS } from '../domain/streams.js'
import { acceptsJobEndsFrom } from './job-ends-from.js'
import { EventStore, type EventEnvelope } from '../ports/event-store.js'
import type { Clock } from '../ports/clock.js'
import { defineProcessor } from './processor.js'
import type { Run } from './runner.js'

/**
 * Records every scrape's result, whether or not the request that asked for it is still waiting (it may have answered
 * 504, or its process may have stopped), so no scrape stays pending; and records a scrape from its job's admission
 * when the request stopped before doing so, so no scrape's job runs without its scrape. A scrape's job can end before
 * its ScrapeRequested is appended, so both events lead here: whichever comes second in the log finds the other.
 * Idempotent: the scrape records its first request and first completion only.
 */
export const makeScrapeRecorder = (options: { readonly log: (message: string, detail?: unknown) => void }, run: Run<EventStore | Clock>) => {
  const record = (scrapeId: string, envelope: EventEnvelope) => run(Effect.gen(function* () {
    const scrape = yield* (yield* EventStore).readStream(STREAMS.scrape.stream(scrapeId))
    if (scrape.length === 0) return // a v1 job, or a scrape whose ScrapeRequested comes later (handled then)
    const end = yield* jobEnd(scrapeId)
    if (end === null) return
    yield* completeScrape(scrapeId, scrape[0]!.org_id, end.event, {
      correlation_id: envelope.metadata.correlation_id, causation_id: envelope.event_id, actor: 'scrape-recorder',
    })
  }))
  /** A scrape's job admitted but its ScrapeRequested not recorded (the request's process stopped in between): record it. */
  const repair = (job: JobRequested, envelope: EventEnvelope) => {
    const scrape = scrapeOfJob(job)
    if (scrape === null) return Promise.resolve()
    return run(Effect.asVoid(recordScrapeRequested(scrape, {
      correlation_id: envelope.metadata.correlation_id, causation_id: envelope.event_id, actor: 'scrape-recorder',
    })))
  }
  return defineProcessor({
    name: 'processor.scrape-recorder',
    categories: ['job', 'scrape'],
    types: ['JobRequested', 'JobSucceeded', 'JobFailed', 'ScrapeRequested'],
    accepts: acceptsJobEndsFrom('scrape'),
    log: options.log,
    handle: async (event, envelope) => {
      switch (event._tag) {
        case 'JobRequested':
          return repair(event, envelope)
        case 'JobSucceeded':
        case 'JobFailed':
          return record(event.job_id, envelope)
        case 'ScrapeRequested':
          return record(event.job_id, envelope)
      }
    },
  })
}
