import type { EventEmitter } from 'node:events'
import { Cause, Effect, Either, Exit, Runtime } from 'effect'
import { streamCategory } from '../../domain/streams.js'
import type { EventLogService } from '../../ports/event-log.js'
import type { EventStoreService, RecordedEvent, StoreUnavailable } from '../../ports/event-store.js'
import { catchUpBatches } from './catch-up-batches.js'
import { makeCheckpointSaver } from './checkpoint-saver.js'
import { makeDispatcher, retryPauseMs } from './dispatcher.js'
import { makeLogWake } from './log-wake.js'
import { makeSharedReader, type LogRead } from './shared-reader.js'

/** Where a catch-up subscriber's durable checkpoint lives (the SQLite file, or the document store). */
export interface CheckpointStore {
  readonly load: (name: string) => Effect.Effect<number, StoreUnavailable>
  readonly save: (name: string, position: number) => Effect.Effect<void, StoreUnavailable>
  /** Saves several subscribers' checkpoints in one write (what the checkpoint saver does a few times a second). */
  readonly saveAll: (positions: ReadonlyMap<string, number>) => Effect.Effect<void, StoreUnavailable>
}

export interface CatchUpOptions {
  /** How often to look for events appended by other processes (the CLI, other roles). */
  readonly pollIntervalMs?: number
  /** Raised after appends in this process, so subscribers do not wait for the next poll. */
  readonly appended?: EventEmitter
  readonly log?: (message: string, detail?: unknown) => void
  /** The store's readAll answered at once (a store that answers synchronously): read without an effect run. */
  readonly readAllNow?: (after: number, limit: number) => readonly RecordedEvent[]
}

const BATCH = 500

/** Catch-up subscriptions over the event store's ordered log, with durable checkpoints. */
export const makeCatchUpLog = (store: EventStoreService, checkpoints: CheckpointStore, options: CatchUpOptions = {}): EventLogService => {
  const log = options.log ?? (() => {})
  const wake = makeLogWake(options.pollIntervalMs ?? 200, options.appended)

  const readAllNow = options.readAllNow
  // A store that answers synchronously (SQLite, memory) is read without a promise round per read.
  let answersAtOnce = true
  /** The batch after `after`: at once from a store that answers synchronously, else a promise of it. */
  const readBatch = (after: number): LogRead | Promise<LogRead> => {
    if (readAllNow) {
      try {
        return Either.right(readAllNow(after, BATCH))
      } catch (error) {
        return Either.left(error)
      }
    }
    const read = Effect.either(store.readAll(after, BATCH))
    if (answersAtOnce) {
      const exit = Effect.runSyncExit(read)
      if (Exit.isSuccess(exit)) return exit.value
      const defect = Cause.squash(exit.cause)
      if (!Runtime.isAsyncFiberException(defect)) return Either.left(defect)
      answersAtOnce = false
    }
    return Effect.runPromise(read).catch((defect: unknown) => Either.left(defect))
  }

  const shared = makeSharedReader({ read: readBatch, batch: BATCH, wake, log })
  const saver = makeCheckpointSaver(checkpoints, log)

  const readBatches: NonNullable<EventLogService['readBatches']> = ({ name, from }, handler) => Effect.sync(() => {
    let handled = from
    let endPause = () => {}
    const reader = shared.join(name, from, async (events, isStopped) => {
      for (let attempt = 1; ; attempt++) {
        try {
          await handler(events)
          handled = events.at(-1)!.position
          return handled
        } catch (error) {
          log(`reader ${name} failed on the events after ${handled} (attempt ${attempt})`, error)
          if (isStopped()) return handled
          await new Promise((resolve) => {
            endPause = () => resolve(undefined)
            setTimeout(resolve, retryPauseMs(attempt))
          })
          if (isStopped()) return handled
        }
      }
    }, { alone: true, gather: true })
    return {
      checkpoint: () => handled,
      stop: () => {
        const stopping = reader.stop()
        endPause()
        return stopping
      },
    }
  })

  return {
    setCheckpoint: checkpoints.save,
    checkpointOf: checkpoints.load,
    subscribe: (subscription, handler) => Effect.map(checkpoints.load(subscription.name), (start) => {
      const categories = subscription.categories ? new Set(subscription.categories) : null
      const types = subscription.types ? new Set(subscription.types) : null
      const accepts = subscription.accepts
      /** Other events count as handled at once, without a handler run. */
      const isRelevant = (event: RecordedEvent) =>
        (types === null || types.has(event.type)) && (categories === null || categories.has(streamCategory(event.stream)))
        && (accepts === undefined || accepts(event))
      const checkpoint = saver.track(subscription.name, start)
      let stopped = false
      const dispatcher = makeDispatcher({
        concurrency: subscription.concurrency ?? 1,
        ...(subscription.maxAttempts !== undefined ? { maxAttempts: subscription.maxAttempts } : {}),
        handler,
        isStopping: () => stopped,
        onCheckpoint: checkpoint.moved,
        onError: (event, error, attempt) => log(`subscriber ${subscription.name} failed on ${event.type} at ${event.position} (attempt ${attempt})`, error),
      })
      dispatcher.setCheckpoint(start)
      /** Hands events over in order, synchronously while the dispatcher takes them at once; answers the last one handed. */
      const deliver = (events: readonly RecordedEvent[], isStopped: () => boolean) => {
        let reached = 0
        const deliverFrom = (index: number): number | Promise<number> => {
          for (let i = index; i < events.length && !isStopped(); i++) {
            const event = events[i]!
            const accepted = dispatcher.dispatch(event, isRelevant(event))
            if (accepted) return accepted.then(() => { reached = event.position; return deliverFrom(i + 1) })
            reached = event.position
          }
          return reached
        }
        return deliverFrom(0)
      }
      const reader = shared.join(subscription.name, start, deliver)

      return {
        checkpoint: () => dispatcher.checkpoint(),
        stop: async () => {
          stopped = true
          await reader.stop()
          await dispatcher.idle()
          await checkpoint.flush()
        },
      }
    }),
    readBatches,
    subscribeBatches: catchUpBatches(readBatches, checkpoints, log),
  }
}
