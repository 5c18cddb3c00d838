import type { RecordedEvent } from '../../ports/event-store.js'
import { firstAfter } from '../log/first-after.js'

/** Deep-frozen, because every subscriber of the process is handed the same object. */
export const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner)
    Object.freeze(value)
  }
  return value
}

/**
 * The newest stretch of the log, held in memory so the process's many catch-up subscribers (every projection and
 * processor) share one read and one JSON parse of each event instead of each querying the file. It only ever holds
 * a complete run of the log: events after `end` come from one query of everything after it, or from an append of this
 * process whose first position directly follows `end` (nothing else can sit between them). A reader further behind
 * than the cache reads the file.
 */
export const makeLogTail = (capacity: number) => {
  let events: RecordedEvent[] = []
  /** Position of the last event held; the cache holds every event in (start, end]. */
  let start = -1
  let end = -1

  const extend = (more: readonly RecordedEvent[]) => {
    for (const event of more) events.push(deepFreeze(event))
    end = more.at(-1)?.position ?? end
    if (events.length > capacity * 2) {
      const dropped = events.length - capacity
      start = events[dropped - 1]!.position
      events = events.slice(dropped)
    }
  }

  return {
    /**
     * Events after `after`, at most `limit`, or null when the cache cannot answer. `readAfterEnd` reads every
     * event after the cache's end from the file (so the cache stays a complete run).
     */
    read: (after: number, limit: number, readAfterEnd: (end: number, limit: number) => readonly RecordedEvent[]): readonly RecordedEvent[] | null => {
      if (start < 0 || after < start || after > end) return null
      if (after === end) {
        const fresh = readAfterEnd(end, limit)
        extend(fresh)
        return fresh
      }
      const from = firstAfter(events, after)
      return events.slice(from, from + limit)
    },
    /** Starts the cache at a read of the file: the events after `after` that the file holds. */
    startAt: (after: number, read: readonly RecordedEvent[]) => {
      events = []
      start = after
      end = after
      extend(read)
    },
    /**
     * An append of this process, committed: held when it directly follows the cache, else left to the next read.
     * Answers whether the cache took it.
     */
    appended: (firstPosition: number, previousPosition: number, recorded: () => readonly RecordedEvent[]): boolean => {
      if (start < 0 || previousPosition !== end || firstPosition <= end) return false
      extend(recorded())
      return true
    },
  }
}
