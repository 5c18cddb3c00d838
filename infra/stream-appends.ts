import { EventEmitter } from 'node:events'
import { Context, Effect, Layer } from 'effect'
import { EventStore, type EventStoreService, type NewEvent } from '../ports/event-store.js'
import { StreamAppends, type StreamAppendsService } from '../ports/stream-appends.js'

/**
 * Wraps the process's EventStore so each successful append raises a signal named after its stream, and provides the
 * StreamAppends port listening to it. Works the same over every event-store adapter (it sees this process's appends).
 */
export const SignallingEventStore = Layer.effectContext(Effect.map(EventStore, (store) => {
  const signals = new EventEmitter()
  signals.setMaxListeners(0)
  const signal = (stream: string, events: readonly NewEvent[]) => { signals.emit(stream, events.map((event) => event.type)) }
  const appendNow = store.appendNow
  const signalling: EventStoreService = {
    ...store,
    append: (stream, events, expected) => store.append(stream, events, expected).pipe(Effect.tap(() => Effect.sync(() => signal(stream, events)))),
    ...(appendNow ? {
      appendNow: (stream, events, expected) => {
        const result = appendNow(stream, events, expected)
        signal(stream, events)
        return result
      },
    } : {}),
  }
  const appends: StreamAppendsService = {
    listen: (stream, onAppend) => {
      signals.on(stream, onAppend)
      return () => { signals.off(stream, onAppend) }
    },
  }
  return Context.make(EventStore, signalling).pipe(Context.add(StreamAppends, appends))
}))
