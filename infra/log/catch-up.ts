import { EventEmitter } from 'node:events'
import { Effect } from 'effect'
import { streamCategory } from '../../domain/streams.js'
import type { EventLogService } from '../../ports/event-log.js'
import type { EventStoreService, StoreUnavailable } from '../../ports/event-store.js'
import { makeDispatcher } from './dispatcher.js'

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
  const pollMs = options.pollIntervalMs ?? 200
  const log = options.log ?? (() => {})

  return {
    setCheckpoint: checkpoints.save,
    subscribe: (subscription, handler) => Effect.map(checkpoints.load(subscription.name), (start) => {
      const categories = subscription.categories ? new Set(subscription.categories) : null
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
      let readCursor = start
      let wake: (() => void) | null = null
      const onAppend = () => wake?.()
      options.appended?.on('append', onAppend)

      const loop = (async () => {
        while (!stopped) {
          const batch = await Effect.runPromise(Effect.either(store.readAll(readCursor, BATCH)))
          if (batch._tag === 'Left') {
            log(`subscriber ${subscription.name} could not read the log`, batch.left)
          } else {
            for (const event of batch.right) {
              if (stopped) break
              await dispatcher.dispatch(event, categories === null || categories.has(streamCategory(event.stream)))
              readCursor = event.position
            }
            if (batch.right.length === BATCH) continue
          }
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, pollMs)
            wake = () => { clearTimeout(timer); resolve() }
          })
          wake = null
        }
      })()

      return {
        checkpoint: () => dispatcher.checkpoint(),
        stop: async () => {
          stopped = true
          wake?.()
          options.appended?.off('append', onAppend)
          await loop
          await dispatcher.idle()
          persist()
          while (saving !== null) await saving
        },
      }
    }),
  }
}
