import type { RecordedEvent } from '../ports/event-store.js'
import type { EventHandler } from '../ports/event-log.js'

export interface DispatcherOptions {
  readonly concurrency: number
  readonly handler: EventHandler
  /** Called whenever the contiguous finished position moves forward. */
  readonly onCheckpoint: (position: number) => void
  readonly onError: (event: RecordedEvent, error: unknown, attempt: number) => void
  /** Attempts per event before it is given up on (logged as dead-lettered) so one poison event cannot stall the log. */
  readonly maxAttempts?: number
  /** While stopping, an event whose handler failed stays unfinished, so it is handled again after a restart. */
  readonly isStopping: () => boolean
}

/**
 * Runs handlers for events given in log order: different streams concurrently (bounded), one stream strictly in order.
 * The checkpoint only moves past an event once it and every event before it have finished.
 */
export const makeDispatcher = (options: DispatcherOptions) => {
  const pending: { position: number; done: boolean }[] = []
  const streamTails = new Map<string, Promise<void>>()
  let active = 0
  const slotWaiters: (() => void)[] = []
  let checkpoint = 0
  const maxAttempts = options.maxAttempts ?? 5

  const acquire = async () => {
    while (active >= options.concurrency) await new Promise<void>((resolve) => slotWaiters.push(resolve))
    active += 1
  }
  const release = () => {
    active -= 1
    slotWaiters.shift()?.()
  }
  const advance = () => {
    let moved = false
    while (pending.length > 0 && pending[0]!.done) {
      checkpoint = pending.shift()!.position
      moved = true
    }
    if (moved) options.onCheckpoint(checkpoint)
  }

  /** Answers whether the event is finished (handled, or given up on) as opposed to abandoned by a shutdown. */
  const runWithRetry = async (event: RecordedEvent): Promise<boolean> => {
    for (let attempt = 1; ; attempt++) {
      try {
        await options.handler(event)
        return true
      } catch (error) {
        if (options.isStopping()) return false
        options.onError(event, error, attempt)
        if (attempt >= maxAttempts) return true
        await new Promise((r) => setTimeout(r, Math.min(5000, 100 * 2 ** attempt)))
      }
    }
  }

  return {
    /** Resolves once the event has a slot (back-pressure for the reader), not when it is handled. */
    dispatch: async (event: RecordedEvent, relevant: boolean): Promise<void> => {
      const entry = { position: event.position, done: false }
      pending.push(entry)
      if (!relevant) {
        entry.done = true
        advance()
        return
      }
      await acquire()
      const previous = streamTails.get(event.stream) ?? Promise.resolve()
      const tail = previous.then(() => runWithRetry(event)).then((finished) => {
        release()
        if (streamTails.get(event.stream) === tail) streamTails.delete(event.stream)
        if (!finished) return
        entry.done = true
        advance()
      })
      streamTails.set(event.stream, tail)
    },
    idle: async () => {
      while (streamTails.size > 0) await Promise.all([...streamTails.values()])
    },
    checkpoint: () => checkpoint,
    setCheckpoint: (position: number) => { checkpoint = position },
  }
}
