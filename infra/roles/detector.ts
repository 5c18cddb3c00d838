import { Effect, Fiber, Queue } from 'effect'
import { startEgressGateway, egressDispatcher } from '../../fetchers/egress/index.js'
import { Clock } from '../../ports/clock.js'
import { EventLog } from '../../ports/event-log.js'
import type { SummarizerService } from '../../ports/summarizer.js'
import { sendDueDigests } from '../../processors/change-notices.js'
import { makeDetector } from '../../processors/detector.js'
import type { Config } from '../config.js'
import { scopedProcessor } from '../log/scoped-log.js'
import type { Logger } from '../logger.js'
import { currentRunner } from '../runtime.js'
import { chatCompletionsSummarizer } from '../summarizer/chat-completions.js'
import { ruleSummarizer } from '../summarizer/rules.js'

/** With no digest owed, the loop still looks again this often (by the clock) in case one was missed. */
const IDLE_RECHECK_MS = 60 * 60 * 1000
/** After a failed round (mail server down), the next try. */
const RETRY_MS = 60 * 1000

/**
 * The detector role: change detection on delivered monitor runs, summaries, change e-mails, and the digest loop.
 * The loop sleeps on the Clock until the next digest is due, or until a new digested change may make one due sooner.
 */
export const detectorRole = (config: Config, logger: Logger) => Effect.gen(function* () {
  const summarizer: SummarizerService = config.summarizer
    ? chatCompletionsSummarizer({
      ...config.summarizer,
      timeoutMs: config.summaryDeadlineMs,
      // The provider is reached like every outbound call of the service: through the egress gateway and its SSRF policy.
      dispatcher: egressDispatcher(yield* Effect.acquireRelease(
        Effect.promise(() => startEgressGateway({ allowlist: config.ssrfAllowlist, log: (entry) => { if (entry.decision !== 'allowed') logger.warn('egress', entry) } })),
        (gateway) => Effect.promise(() => gateway.close()),
      )),
    })
    : ruleSummarizer
  const wake = yield* Queue.sliding<void>(1)
  const notices = {
    summarizer, summaryDeadlineMs: config.summaryDeadlineMs, publicBaseUrl: config.publicBaseUrl, signingSecret: config.signingSecret, log: logger.error,
  }
  const run = yield* currentRunner
  const detector = makeDetector({ ...notices, digestsChanged: () => { Queue.unsafeOffer(wake, undefined) } }, run)
  yield* scopedProcessor(yield* EventLog, detector, 8)
  const clock = yield* Clock
  const digestLoop = Effect.gen(function* () {
    for (;;) {
      const next = yield* sendDueDigests(notices).pipe(
        Effect.catchAll((error) => Effect.sync(() => {
          logger.error('digest sending failed; retrying in a minute', error)
          return new Date(clock.now().getTime() + RETRY_MS)
        })),
      )
      const until = next ?? new Date(clock.now().getTime() + IDLE_RECHECK_MS)
      yield* Effect.raceFirst(clock.sleepUntil(until), Queue.take(wake))
    }
  })
  const fiber = yield* Effect.forkDaemon(digestLoop)
  yield* Effect.addFinalizer(() => Fiber.interrupt(fiber))
})
