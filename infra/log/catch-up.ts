import type { EventEmitter } from 'node:events'
import { Cause, Effect, Either, Exit, Runtime } from 'effect'
import { streamCategory } from '../../domain/streams.js'
import type { EventLogService } from '../../ports/event-log.js'
import type { EventStoreService, RecordedEvent, StoreUnavailable } from '../../ports/event-store.js'
import { catchUpBatches } from './catch-up-batches.js'
import { makeDispatcher, retryPauseMs } from './dispatcher.js'
import { makeLogWake } from './log-wake.js'

/** Where a catch-up subscriber's durable checkpoint lives (the SQLite file, or the document store). */
export interface CheckpointStore {
  readonly load: (name: string) => Effect.Effect<number, StoreUnavailable>
  readonly save: (name: string, position: number) => Effect.Effect<void, StoreUnavailable>
}

export interface CatchUpOptions {
  /** How often to look for events appended by other processes (the CLI, other roles). */
  readonly pollIntervalMs?: number
  /** Raised after appends in this process, so subscribers do not wait for the next poll. */
  readonly appended?: EventEmitter
  readonly log?: (message: string, detail?: unknown) => void
}

const BATCH = 500

/** Catch-up subscriptions over the event store's ordered log, with durable checkpoints. */
export const makeCatchUpLog = (store: EventStoreService, checkpoints: CheckpointStore, options: CatchUpOptions = {}): EventLogService => {
  const log = options.log ?? (() => {})
  const wake = makeLogWake(options.pollIntervalMs ?? 200, options.appended)

  // A store that answers synchronously (SQLite, memory) is read without a promise round per read.
  let answersAtOnce = true
  type Read = Either.Either<readonly RecordedEvent[], unknown>
  /** The batch after `after`: at once from a store that answers synchronously, else a promise of it. */
  const readBatch = (after: number): Read | Promise<Read> => {
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

  /**
   * Reads the log after `start` until stopped: each batch goes to `deliver`, which answers the position it reached
   * (the next read starts after it), at once or as a promise; at the end of the log it waits for the next wake.
   */
  const follow = (
    name: string, start: number, deliver: (events: readonly RecordedEvent[], stopped: () => boolean) => number | Promise<number>,
    /** After a wake, let the appends already under way land first, so they are read as one batch. */
    gather = false,
  ) => {
    let stopped = false
    let stop: () => void = () => {}
    const stopping = new Promise<void>((resolve) => { stop = resolve })
    /** Ends the loop's wait for a wake (at the wake, or at stop). */
    let wakeUp: () => void = () => {}
    const nextWake = (seen: number) => new Promise<void>((resolve) => {
      wakeUp = resolve
      wake.onNext(seen, resolve)
    })
    let cursor = start
    wake.join()
    const loop = (async () => {
      try {
        while (!stopped) {
          const seen = wake.generation()
          const read = readBatch(cursor)
          const batch = read instanceof Promise ? await read : read
          if (Either.isLeft(batch)) log(`subscriber ${name} could not read the log`, batch.left)
          else if (batch.right.length > 0) {
            const delivered = deliver(batch.right, () => stopped)
            const reached = typeof delivered === 'number' ? delivered : await delivered
            const moved = reached > cursor
            if (moved) cursor = reached
            if (moved && batch.right.length === BATCH) continue
          }
          if (!stopped) await nextWake(seen)
          if (gather && !stopped) await new Promise((resolve) => setImmediate(resolve))
        }
      } finally {
        wake.leave()
      }
    })()
    return {
      stopping,
      stop: async () => {
        stopped = true
        stop()
        wakeUp()
        await loop
      },
    }
  }

  const readBatches: NonNullable<EventLogService['readBatches']> = ({ name, from }, handler) => Effect.sync(() => {
    let handled = from
    const reader = follow(name, from, async (events, isStopped) => {
      for (let attempt = 1; ; attempt++) {
        try {
          await handler(events)
          handled = events.at(-1)!.position
          return handled
        } catch (error) {
          log(`reader ${name} failed on the events after ${handled} (attempt ${attempt})`, error)
          if (isStopped()) return handled
          await Promise.race([new Promise((resolve) => setTimeout(resolve, retryPauseMs(attempt))), reader.stopping])
          if (isStopped()) return handled
        }
      }
    }, true)
    return { checkpoint: () => handled, stop: reader.stop }
  })

  return {
    setCheckpoint: checkpoints.save,
    checkpointOf: checkpoints.load,
    subscribe: (subscription, handler) => Effect.map(checkpoints.load(subscription.name), (start) => {
      const categories = subscription.categories ? new Set(subscription.categories) : null
      const types = subscription.types ? new Set(subscription.types) : null
      /** Other events count as handled at once, without a handler run. */
      const isRelevant = (event: RecordedEvent) =>
        (types === null || types.has(event.type)) && (categories === null || categories.has(streamCategory(event.stream)))
      // One save in flight at a time; positions reached meanwhile are saved (the latest only) when it completes.
      let persisted = start
      let wanted = start
      let saving: Promise<void> | null = null
      const persist = () => {
        if (saving !== null || wanted <= persisted) return
        const position = wanted
        saving = Effect.runPromise(checkpoints.save(subscription.name, position)).then(
          () => { persisted = position; saving = null; persist() },
          (e: unknown) => { saving = null; log(`subscriber ${subscription.name} could not save its checkpoint`, e) },
        )
      }
      let stopped = false
      const dispatcher = makeDispatcher({
        concurrency: subscription.concurrency ?? 1,
        ...(subscription.maxAttempts !== undefined ? { maxAttempts: subscription.maxAttempts } : {}),
        handler,
        isStopping: () => stopped,
        onCheckpoint: (position) => {
          if (position <= wanted) return
          wanted = position
          persist()
        },
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
      const reader = follow(subscription.name, start, deliver)

      return {
        checkpoint: () => dispatcher.checkpoint(),
        stop: async () => {
          stopped = true
          await reader.stop()
          await dispatcher.idle()
          persist()
          while (saving !== null) await saving
        },
      }
    }),
    readBatches,
    subscribeBatches: catchUpBatches(readBatches, checkpoints, log),
  }
}
