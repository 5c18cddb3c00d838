import { Effect } from 'effect'
import { streamCategory } from '../../domain/streams.js'
import type { EventLogService } from '../../ports/event-log.js'
import { makeBatchOrOneByOne } from './batch-or-one-by-one.js'
import type { CheckpointStore } from './catch-up.js'

/**
 * Batch subscriptions over the event store's ordered log, on its batch reader: each batch's events of the subscriber's
 * categories go to the handler together, in log order, and the durable checkpoint is saved past the batch once the
 * handler resolved (at-least-once: a restart hands over again at most the batch in progress). What the projections
 * whose documents gather many streams read on the scale-out profile, so a batch costs them a few round trips to the
 * read models instead of several per event.
 */
export const catchUpBatches = (
  readBatches: NonNullable<EventLogService['readBatches']>, checkpoints: CheckpointStore, log: (message: string, detail?: unknown) => void,
): NonNullable<EventLogService['subscribeBatches']> => (subscription, handler) => Effect.flatMap(checkpoints.load(subscription.name), (start) => {
  const categories = subscription.categories ? new Set(subscription.categories) : null
  let stopped = false
  const handle = makeBatchOrOneByOne(handler, { subscription, isStopping: () => stopped, onFinished: () => {}, log })
  return Effect.map(readBatches({ name: subscription.name, from: start }, async (events) => {
    const relevant = categories === null ? events : events.filter((event) => categories.has(streamCategory(event.stream)))
    if (relevant.length > 0) await handle(relevant)
    await Effect.runPromise(checkpoints.save(subscription.name, events.at(-1)!.position))
  }), (reader) => ({
    checkpoint: reader.checkpoint,
    stop: async () => {
      stopped = true
      await reader.stop()
    },
  }))
})
