import { Effect, Layer } from 'effect'
import { streamCategory } from '../../domain/events.js'
import { EventLog, type EventLogService } from '../ports/event-log.js'
import type { SqliteEventStore } from '../sqlite/event-store.js'
import { makeDispatcher } from './dispatcher.js'

export interface CatchUpOptions {
  /** How often to look for events appended by other processes (the CLI, other roles). */
  readonly pollIntervalMs?: number
  readonly log?: (message: string, detail?: unknown) => void
}

/** Embedded fan-out: catch-up subscriptions over the SQLite log with durable checkpoints in the same file. */
export const makeCatchUpLog = (store: SqliteEventStore, options: CatchUpOptions = {}): EventLogService => {
  const getCheckpoint = store.db.prepare<[string], { position: number }>('select position from checkpoints where name = ?')
  const setCheckpoint = store.db.prepare('insert into checkpoints (name, position) values (?, ?) on conflict(name) do update set position = excluded.position')
  const pollMs = options.pollIntervalMs ?? 200
  const log = options.log ?? (() => {})

  return {
    setCheckpoint: (name, position) => Effect.sync(() => { setCheckpoint.run(name, position) }),
    subscribe: (subscription, handler) => Effect.sync(() => {
      const categories = subscription.categories ? new Set(subscription.categories) : null
      const start = getCheckpoint.get(subscription.name)?.position ?? 0
      let persisted = start
      let stopped = false
      const dispatcher = makeDispatcher({
        concurrency: subscription.concurrency ?? 1,
        handler,
        onCheckpoint: (position) => {
          if (position > persisted && store.db.open) {
            setCheckpoint.run(subscription.name, position)
            persisted = position
          }
        },
        isStopping: () => stopped,
        onError: (event, error, attempt) => log(`subscriber ${subscription.name} failed on ${event.type} at ${event.position} (attempt ${attempt})`, error),
      })
      dispatcher.setCheckpoint(start)
      let readCursor = start
      let wake: (() => void) | null = null
      const onAppend = () => wake?.()
      store.appended.on('append', onAppend)

      const loop = (async () => {
        while (!stopped) {
          const batch = Effect.runSync(Effect.either(store.readAll(readCursor, 500)))
          if (batch._tag === 'Left') {
            log(`subscriber ${subscription.name} could not read the log`, batch.left)
          } else {
            for (const event of batch.right) {
              if (stopped) break
              await dispatcher.dispatch(event, categories === null || categories.has(streamCategory(event.stream)))
              readCursor = event.position
            }
            if (batch.right.length === 500) continue
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
          store.appended.off('append', onAppend)
          await loop
          await dispatcher.idle()
        },
      }
    }),
  }
}

export const CatchUpLogLayer = (store: SqliteEventStore, options?: CatchUpOptions) => Layer.succeed(EventLog, makeCatchUpLog(store, options))
