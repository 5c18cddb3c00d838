import { Effect } from 'effect'
import { EventLog } from '../../ports/event-log.js'
import { makeMailerProcessor } from '../../processors/mailer.js'
import type { Config } from '../config.js'
import { scopedProcessor } from '../log/scoped-log.js'
import type { Logger } from '../logger.js'
import { currentRunner } from '../runtime.js'

/** The mailer role: sends the e-mails that user events call for (verification links). */
export const mailerRole = (config: Config, logger: Logger) => Effect.gen(function* () {
  const mailer = makeMailerProcessor({ publicBaseUrl: config.publicBaseUrl, log: logger.error }, yield* currentRunner)
  yield* scopedProcessor(yield* EventLog, mailer, 4)
})
