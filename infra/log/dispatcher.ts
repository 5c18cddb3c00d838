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
  /** Takes a free slot at once (true), or answers false when none is free. */
  readonly tryAcquire: () => boolean
  readonly acquire: () => Promise<void>
  readonly release: () => void
}

export const makeSlots = (limit: number): Slots => {
  let active = 0
  // A released slot passes straight to the first waiter, so a later `tryAcquire` cannot take it from under a waiter.
  const waiters: (() => void)[] = []
  const tryAcquire = () => {
    if (active >= limit) return false
    active += 1
    return true
  }
  return {
    tryAcquire,
    acquire: () => (tryAcquire() ? Promise.resolve() : new Promise<void>((resolve) => { waiters.push(resolve) })),
    release: () => {
      const next = waiters.shift()
      if (next) next()
      else active -= 1
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
  const bufferWaiters: (() => void)[] = []
  let checkpoint = 0
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS
  const { tryAcquire, acquire, release } = options.slots ?? makeSlots(options.concurrency)
  /** How many unfinished events the reader may hand over; concurrency 1 is the log's total order (one at a time). */
  const bufferLimit = options.concurrency === 1 ? 1 : options.concurrency * 8
  const advance = () => {
    let moved = false
    while (pending.length > 0 && pending[0]!.done) {
      checkpoint = pending.shift()!.cursor
      moved = true
    }
    if (moved) options.onCheckpoint(checkpoint)
    while (bufferWaiters.length > 0 && inFlight < bufferLimit) bufferWaiters.shift()!()
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

  /** Runs the handler in a slot; with a slot free it starts at once, in the caller's turn. */
  const runInSlot = async (event: RecordedEvent): Promise<boolean> => {
    if (!tryAcquire()) await acquire()
    try { return await runWithRetry(event) } finally { release() }
  }

  /** Takes the event in (buffer space is there): a finished entry at once when not relevant, else its stream's next run. */
  const accept = (event: RecordedEvent, relevant: boolean, cursor: number) => {
    if (!relevant) {
      // Nothing unfinished before it: the checkpoint passes it without an entry.
      if (pending.length === 0) {
        checkpoint = cursor
        options.onCheckpoint(checkpoint)
      } else pending.push({ cursor, done: true })
      return
    }
    const entry = { cursor, done: false }
    pending.push(entry)
    inFlight += 1
    const previous = streamTails.get(event.stream)
    const ran = previous === undefined ? runInSlot(event) : previous.then((previousFinished) => previousFinished && runInSlot(event))
    const tail: Promise<boolean> = ran.then((finished) => {
      inFlight -= 1
      if (streamTails.get(event.stream) === tail) streamTails.delete(event.stream)
      if (finished) entry.done = true
      advance()
      return finished
    })
    streamTails.set(event.stream, tail)
  }

  const acceptWhenRoom = async (event: RecordedEvent, relevant: boolean, cursor: number) => {
    while (inFlight >= bufferLimit) await new Promise<void>((resolve) => bufferWaiters.push(resolve))
    accept(event, relevant, cursor)
  }

  return {
    /**
     * Takes an event in, at once (answering nothing) when there is buffer space, else answers a promise that resolves
     * once it is taken in (back-pressure for the reader: at most concurrency x 8 unfinished events), never one that
     * waits for it to be handled. A handler takes a slot only when its stream's previous event is done, so events
     * waiting behind a slow one of their stream never hold a slot. A reader hands events over one at a time, awaiting
     * each answer that is a promise.
     */
    dispatch: (event: RecordedEvent, relevant: boolean, cursor: number = event.position): Promise<void> | undefined => {
      if (inFlight >= bufferLimit) return acceptWhenRoom(event, relevant, cursor)
      accept(event, relevant, cursor)
      return undefined
    },
    idle: async () => {
      while (streamTails.size > 0) await Promise.all([...streamTails.values()])
    },
    checkpoint: () => checkpoint,
    setCheckpoint: (position: number) => { checkpoint = position },
  }
}
