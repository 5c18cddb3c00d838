import { Effect } from 'effect'
import { DocumentStore, type Doc } from '../ports/document-store.js'
import type { RecordedEvent, StoreUnavailable } from '../ports/event-store.js'

/** A read model: events of some categories folded into documents. */
export interface Projection {
  readonly name: string
  readonly categories: readonly string[]
  readonly collections: readonly string[]
  /**
   * Events handled at once (one stream's events always in order). A projection whose documents gather events of
   * many streams must use 1: its position guard assumes one writer per document, in log order.
   */
  readonly concurrency: number
  /**
   * `stream`: only one stream's events touch a document, so per-stream order suffices (Kafka partitions by stream).
   * `log`: documents gather events of many streams and need the log's total order, so the projection reads the
   * event store's own log (catch-up), even on the scale-out profile.
   */
  readonly ordering: 'stream' | 'log'
  readonly apply: (event: RecordedEvent) => Effect.Effect<void, StoreUnavailable, DocumentStore>
}

/**
 * Updates one document idempotently by log position: an event at or below the position the document
 * last saw was already applied (at-least-once delivery), so it is skipped.
 */
export const updateDoc = (
  collection: string,
  id: string,
  event: RecordedEvent,
  change: (current: Doc | null) => Record<string, unknown> | null,
) =>
  Effect.gen(function* () {
    const docs = yield* DocumentStore
    const current = yield* docs.get(collection, id)
    if (current && typeof current._position === 'number' && current._position >= event.position) return
    const next = change(current)
    if (next === null) return
    yield* docs.put(collection, { ...next, _id: id, _position: event.position })
  })
