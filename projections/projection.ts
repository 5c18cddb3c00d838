import { Effect } from 'effect'
import { decodeStored } from '../domain/events.js'
import type { Category, DomainEvent, EventOf } from '../domain/streams.js'
import { DocumentStore, type Filter, type FindOptions, type IndexDeclaration } from '../ports/document-store.js'
import type { EventEnvelope, RecordedEvent, StoreUnavailable } from '../ports/event-store.js'
import { foldIntoStore, type DocumentView } from './document-view.js'

export type { DocumentView } from './document-view.js'

/** A read model: events of some categories folded into documents. */
export interface Projection {
  readonly name: string
  readonly categories: readonly string[]
  readonly collections: readonly string[]
  /** Indexes the projection's queries need; the document store creates them at start-up. */
  readonly indexes: readonly IndexDeclaration[]
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
  /** Folds one recorded event into the document store (the live path). */
  readonly apply: (event: RecordedEvent) => Effect.Effect<void, StoreUnavailable, DocumentStore>
  /**
   * Folds one recorded event into `view`, synchronously (replay calls it directly). Answers why the event was skipped
   * (this version cannot decode it), or undefined. Throws the view's DocumentNeeded when a read must be loaded first.
   */
  readonly fold: (event: RecordedEvent, view: DocumentView) => string | undefined
  /**
   * Folds an event the caller decoded (replay decodes each event once for all the projections of its category, and
   * only hands over events that decoded as one of them), as `fold` does after its decoding.
   */
  readonly foldDecoded: (event: DomainEvent, recorded: RecordedEvent, view: DocumentView) => void
  /**
   * Collections whose documents are each written by one event only and never read by a fold except by that write's
   * own position guard (documents keyed by their event's id, such as the audit trail's). A rebuild streams them to
   * the store as they are folded, without holding them, and answers their reads as absent; it inserts them, so a
   * second write of one id fails the rebuild instead of going unnoticed.
   */
  readonly writeOnce?: readonly string[]
}

export interface ProjectionDefinition<C extends Category> extends Omit<Projection, 'categories' | 'apply' | 'fold' | 'foldDecoded' | 'indexes'> {
  readonly categories: readonly C[]
  readonly indexes?: readonly IndexDeclaration[]
  /**
   * Folds one decoded event into its documents; switch on `event._tag`. The one definition of the read model: the
   * live path and replay both run it. It may be run again from the start (see DocumentView), so it only reads and
   * writes through `view`.
   */
  readonly fold: (event: EventOf<C>, envelope: EventEnvelope, view: DocumentView) => void
}

/**
 * Builds a projection whose fold gets events decoded into the domain's union, once, here. An event this version
 * cannot decode (unknown type, schema mismatch) is skipped with a logged reason instead of stopping the projection.
 */
export const defineProjection = <C extends Category>(definition: ProjectionDefinition<C>): Projection => {
  return {
    ...definition,
    indexes: definition.indexes ?? [],
    // The recorded event is its own envelope (a copy without the raw data would cost one object per event and projection).
    fold: (recorded, view) => {
      const decoded = decodeStored(definition.categories, recorded)
      if (!decoded.ok) return skipReason(definition, recorded, decoded.reason)
      definition.fold(decoded.event, recorded, view)
      return undefined
    },
    foldDecoded: (event, recorded, view) => definition.fold(event as EventOf<C>, recorded, view),
    apply: (recorded) => {
      const decoded = decodeStored(definition.categories, recorded)
      if (!decoded.ok) return Effect.logWarning(skipReason(definition, recorded, decoded.reason))
      return Effect.flatMap(DocumentStore, (store) => foldIntoStore(store, (view) => definition.fold(decoded.event, recorded, view)))
    },
  }
}

/** Why a projection skips an event it cannot decode (logged; the projection goes on with the next event). */
export const skipReason = (projection: Pick<Projection, 'name'>, recorded: RecordedEvent, reason: string) =>
  `${projection.name} skips event ${recorded.event_id} (position ${recorded.position}): ${reason}`

/** Every document carries its id and the log position of the last event that changed it. */
export type Stored<Fields> = Fields & { readonly _id: string; readonly _position: number }

/** A collection whose documents have one shape, written by one projection only. */
export interface Collection<D extends Stored<object>> {
  readonly name: string
  /** Type-level only: the document shape. */
  readonly _doc?: D
}

export const collection = <D extends Stored<object>>(name: string): Collection<D> => ({ name })

// The casts below are the one place a stored document gets its type: only its projection writes the collection.
export const getDoc = <D extends Stored<object>>(from: Collection<D>, id: string) =>
  Effect.flatMap(DocumentStore, (docs) => docs.get(from.name, id)) as Effect.Effect<D | null, StoreUnavailable, DocumentStore>

export const findDocs = <D extends Stored<object>>(from: Collection<D>, filter: Filter, options?: FindOptions) =>
  Effect.flatMap(DocumentStore, (docs) => docs.find(from.name, filter, options)) as Effect.Effect<readonly D[], StoreUnavailable, DocumentStore>

export const countDocs = <D extends Stored<object>>(from: Collection<D>, filter: Filter) =>
  Effect.flatMap(DocumentStore, (docs) => docs.count(from.name, filter))

/**
 * Updates one document idempotently by log position: an event at or below the position the document
 * last saw was already applied (at-least-once delivery), so it is skipped.
 */
export const updateDoc = <D extends Stored<object>>(
  view: DocumentView,
  into: Collection<D>,
  id: string,
  envelope: Pick<EventEnvelope, 'position'>,
  change: (current: D | null) => NoInfer<Omit<D, '_id' | '_position'> & Partial<Pick<D, '_id' | '_position'>>> | null,
): void => {
  const current = view.get(into, id)
  if (current && current._position >= envelope.position) return
  const next = change(current)
  if (next === null) return
  // A new value the change built with an `_id` (from a document, or a literal with a placeholder `_id` and `_position`
  // last) is stamped in place: a copy per write is a large part of a replay's time (docs/performance.md), and a copy
  // that adds properties (a spread of objects of many shapes) costs several times as much as setting two. The current
  // document itself, or a frozen one, is copied, as documents read are never changed; so is a value built without
  // `_id`, which may be an object the change did not build.
  if (next === current || Object.isFrozen(next) || !('_id' in next)) return view.put(into, { ...next, _id: id, _position: envelope.position } as unknown as D)
  const doc = next as unknown as { _id: string; _position: number }
  doc._id = id
  doc._position = envelope.position
  view.put(into, doc as unknown as D)
}
