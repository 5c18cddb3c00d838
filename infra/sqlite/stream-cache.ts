import type { RecordedEvent } from '../../ports/event-store.js'
import { deepFreeze } from './log-tail.js'

/**
 * Streams this process read or appended lately, each held as the complete, frozen list of its events, so a command
 * that reads its stream again (a job's start, then its end, then whoever waits for it) skips the query, the JSON parse
 * and, since the same objects come back, the decoding. Events are never changed once recorded, so a held list is
 * exact as long as the stream's last revision in the file is the held one's: the reader checks that first (appends of
 * other processes change it), and a stale list is read again.
 */
export const makeStreamCache = (capacity: number) => {
  const streams = new Map<string, readonly RecordedEvent[]>()
  const remember = (stream: string, events: readonly RecordedEvent[]) => {
    streams.delete(stream)
    streams.set(stream, Object.freeze(events))
    // A Map iterates in insertion order: the first key is the least recently used stream.
    if (streams.size > capacity) streams.delete(streams.keys().next().value!)
    return events
  }
  return {
    /** The stream's events when the held list ends at `lastRevision` (the file's), else null. */
    read: (stream: string, lastRevision: number): readonly RecordedEvent[] | null => {
      const held = streams.get(stream)
      return held !== undefined && held.at(-1)?.revision === lastRevision ? remember(stream, held) : null
    },
    /** A complete read of the stream from the file. */
    readFromFile: (stream: string, events: readonly RecordedEvent[]) =>
      events.length === 0 ? events : remember(stream, events.map(deepFreeze)),
    /** A committed append of this process: frozen `events`, directly after the stream's revision `previousRevision` (-1 for a new stream). */
    appended: (stream: string, previousRevision: number, events: readonly RecordedEvent[]) => {
      if (previousRevision === -1) { remember(stream, events); return }
      const held = streams.get(stream)
      if (held !== undefined && held.at(-1)?.revision === previousRevision) remember(stream, [...held, ...events])
    },
  }
}
