import { Effect } from 'effect'
import { EventLog } from '../../ports/event-log.js'
import { makeScrapeRecorder } from '../../processors/scrape-recorder.js'
import { scopedSubscription } from '../log/scoped-log.js'
import type { Logger } from '../logger.js'
import { currentRunner } from '../runtime.js'
import { subscriptionOf } from '../../processors/processor.js'

/** Records account-API scrape results from their jobs; runs beside the fetcher (wherever jobs end). */
export const scrapeRecorderRole = (logger: Logger) => Effect.gen(function* () {
  const recorder = makeScrapeRecorder({ log: logger.error }, yield* currentRunner)
  yield* scopedSubscription(yield* EventLog, subscriptionOf(recorder, 4), recorder.handle)
})
