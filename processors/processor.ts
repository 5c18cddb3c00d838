import { decodeStored } from '../domain/events.js'
import type { Category, EventOf } from '../domain/streams.js'
import type { SubscriptionOptions } from '../ports/event-log.js'
import type { EventEnvelope, RecordedEvent } from '../ports/event-store.js'

/** The event types of some categories. */
export type TypeOf<C extends Category> = EventOf<C>['_tag']

export interface ProcessorDefinition<C extends Category, T extends TypeOf<C>> {
  readonly name: string
  readonly categories: readonly C[]
  /**
   * The event types it reacts to. Every other event of its categories is passed over without being decoded or handed
   * to `handle` (the embedded log does not even schedule a handler run for it), and a `case` of `handle` for a type
   * not listed does not type-check.
   */
  readonly types: readonly T[]
  /**
   * Optional: of the events of the listed types, the ones `handle` may act on, told from the recorded event alone (its
   * type and raw data; no read, no decoding). The others are passed over as other types are (the embedded log counts
   * them as handled without scheduling a handler run), so a processor pays nothing for events that are not its own.
   */
  readonly accepts?: (recorded: RecordedEvent) => boolean
  /** Reacts to one decoded event of the listed types; switch on `event._tag`. */
  readonly handle: (event: Extract<EventOf<C>, { readonly _tag: T }>, envelope: EventEnvelope) => Promise<void>
  /** Where the reason goes when an event cannot be decoded. */
  readonly log: (message: string, detail?: unknown) => void
}

export interface Processor {
  readonly name: string
  readonly categories: readonly string[]
  readonly types: readonly string[]
  readonly accepts?: (recorded: RecordedEvent) => boolean
  /** The subscription's handler: takes recorded events, decodes each of the listed types once, ignores the others. */
  readonly handle: (event: RecordedEvent) => Promise<void>
}

/**
 * Builds a processor whose handler gets events decoded into the domain's union. An event this version cannot decode
 * (unknown type, schema mismatch) is skipped with a logged reason: retrying cannot make it readable.
 */
export const defineProcessor = <C extends Category, T extends TypeOf<C>>(definition: ProcessorDefinition<C, T>): Processor => {
  const types: ReadonlySet<string> = new Set(definition.types)
  const accepts = definition.accepts
  return {
    name: definition.name,
    categories: definition.categories,
    types: definition.types,
    ...(accepts ? { accepts } : {}),
    handle: async (recorded) => {
      if (!types.has(recorded.type) || (accepts && !accepts(recorded))) return
      const decoded = decodeStored(definition.categories, recorded)
      if (!decoded.ok) {
        definition.log(`${definition.name} skips event ${recorded.event_id} (position ${recorded.position}): ${decoded.reason}`)
        return
      }
      const { type: _type, data: _data, ...envelope } = recorded
      await definition.handle(decoded.event as Extract<EventOf<C>, { readonly _tag: T }>, envelope)
    },
  }
}

/** The subscription a processor reads: its name, categories and event types, `concurrency` handlers at once. */
export const subscriptionOf = (processor: Processor, concurrency: number): SubscriptionOptions => ({
  name: processor.name, categories: processor.categories, types: processor.types, concurrency,
  ...(processor.accepts ? { accepts: processor.accepts } : {}),
})
