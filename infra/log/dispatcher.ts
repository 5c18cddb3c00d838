import type { RecordedEvent } from '../../ports/event-store.js'
import type { EventHandler } from '../../ports/event-log.js'

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
  /** Handler slots, shared when several dispatchers (one per Kafka partition) must respect one bound. */
  readonly slots?: Slots
}

/** Attempts per event when a subscription does not say. */
export const DEFAULT_MAX_ATTEMPTS = 5

/** Pause before a failed event (or batch) is tried again: doubling from 200 ms, at most 5 s. */
export const retryPauseMs = (attempt: number) => Math.min(5000, 100 * 2 ** attempt)

export interface Slots {
  readonly acquire: () => Promise<void>
  readonly release: () => void
}

export const makeSlots = (limit: number): Slots => {
  let active = 0
  const waiters: (() => void)[] = []
  return {
    acquire: async () => {
      while (active >= limit) await new Promise<void>((resolve) => waiters.push(resolve))
      active += 1
    },
    release: () => {
      active -= 1
      waiters.shift()?.()
    },
  }
}

/**
 * Runs handlers for events given in log order: different streams concurrently (bounded), one stream strictly in order.
 * The checkpoint only moves past an event once it and every event before it have finished.
 */
export const makeDispatcher = (options: DispatcherOptions) => {
  /** Cursor: the log position (catch-up) or the partition offset (Kafka) that the checkpoint reports. */
  const pending: { cursor: number; done: boolean }[] = []
  /** Per stream: resolves to whether its last event finished (false: abandoned, so later ones must not run). */
  const streamTails = new Map<string, Promise<boolean>>()
  const bufferLimit = options.concurrency * 8
  const bufferWaiters: (() => void)[] = []
  let checkpoint = 0
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS
  const { acquire, release } = options.slots ?? makeSlots(options.concurrency)
  const advance = () => {
    let moved = false
    while (pending.length > 0 && pending[0]!.done) {
      checkpoint = pending.shift()!.cursor
      moved = true
    }
    if (moved) options.onCheckpoint(checkpoint)
    while (bufferWaiters.length > 0 && inFlight < (options.concurrency === 1 ? 1 : bufferLimit)) bufferWaiters.shift()!()
  }
  let inFlight = 0

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
        await new Promise((r) => setTimeout(r, retryPauseMs(attempt)))
      }
    }
  }

  return {
    /**
     * Resolves once the event is accepted (back-pressure for the reader: at most concurrency x 8 unfinished events),
     * not when it is handled. A handler takes a slot only when its stream's previous event is done, so events
     * waiting behind a slow one of their stream never hold a slot.
     */
    dispatch: async (event: RecordedEvent, relevant: boolean, cursor: number = event.position): Promise<void> => {
      // Concurrency 1 is the log's total order: each event is handled before the next is accepted.
      const sequential = options.concurrency === 1
      while (inFlight >= (sequential ? 1 : bufferLimit)) await new Promise<void>((resolve) => bufferWaiters.push(resolve))
      const entry = { cursor, done: false }
      pending.push(entry)
      if (!relevant) {
        entry.done = true
        advance()
        return
      }
      inFlight += 1
      const previous = streamTails.get(event.stream) ?? Promise.resolve(true)
      const tail: Promise<boolean> = previous.then(async (previousFinished) => {
        if (!previousFinished) return false
        await acquire()
        try { return await runWithRetry(event) } finally { release() }
      }).then((finished) => {
        inFlight -= 1
        if (streamTails.get(event.stream) === tail) streamTails.delete(event.stream)
        if (finished) entry.done = true
        advance()
        return finished
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
