import type { BatchHandler, SubscriptionOptions } from '../../ports/event-log.js'
import type { RecordedEvent } from '../../ports/event-store.js'
import { DEFAULT_MAX_ATTEMPTS, makeDispatcher } from './dispatcher.js'

export interface BatchOrOneByOneOptions {
  readonly subscription: SubscriptionOptions
  readonly isStopping: () => boolean
  /** Each event once it is handled or given up on. */
  readonly onFinished: (event: RecordedEvent) => void
  readonly log: (message: string, detail?: unknown) => void
}

/**
 * Hands a batch to `handler`; when that fails, hands its events again one at a time in order, each retried and a
 * poison one given up on (logged) after `maxAttempts`, so one bad event cannot stall a batch subscription. Resolves
 * once every event is finished; rejects only when stopping (the events not finished are handled after a restart).
 */
export const makeBatchOrOneByOne = (handler: BatchHandler, options: BatchOrOneByOneOptions) => {
  const { subscription, isStopping, onFinished, log } = options
  const maxAttempts = subscription.maxAttempts ?? DEFAULT_MAX_ATTEMPTS
  return async (events: readonly RecordedEvent[]) => {
    try {
      await handler(events)
      for (const event of events) onFinished(event)
      return
    } catch (error) {
      if (isStopping()) throw error
      log(`subscriber ${subscription.name} failed on a batch of ${events.length} events; handling them one at a time`, error)
    }
    const dispatcher = makeDispatcher({
      concurrency: 1,
      maxAttempts,
      handler: async (event) => {
        await handler([event])
        onFinished(event)
      },
      isStopping,
      onCheckpoint: () => {},
      onError: (event, error, attempt) => {
        const what = `${event.type} at ${event.position} (attempt ${attempt})`
        if (attempt < maxAttempts) return log(`subscriber ${subscription.name} failed on ${what}`, error)
        onFinished(event)
        log(`subscriber ${subscription.name} gave up on ${what}`, error)
      },
    })
    for (const event of events) await dispatcher.dispatch(event, true)
    await dispatcher.idle()
    if (isStopping()) throw new Error('stopped before the batch was handled')
  }
}
