import { Effect } from 'effect'
import { EventLog } from '../../ports/event-log.js'
import { makeScrapeRecorder } from '../../processors/scrape-recorder.js'
import { scopedProcessor } from '../log/scoped-log.js'
import type { Logger } from '../logger.js'
import { currentRunner } from '../runtime.js'

/** Records account-API scrape results from their jobs; runs beside the fetcher (wherever jobs end). */
export const scrapeRecorderRole = (logger: Logger) => Effect.gen(function* () {
  const recorder = makeScrapeRecorder({ log: logger.error }, yield* currentRunner)
  yield* scopedProcessor(yield* EventLog, recorder, 4)
})
