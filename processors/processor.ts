import { decodeStored } from '../domain/events.js'
import type { Category, EventOf } from '../domain/streams.js'
import type { EventEnvelope, RecordedEvent } from '../ports/event-store.js'

export interface ProcessorDefinition<C extends Category> {
  readonly name: string
  readonly categories: readonly C[]
  /** Reacts to one decoded event; switch on `event._tag`. */
  readonly handle: (event: EventOf<C>, envelope: EventEnvelope) => Promise<void>
  /** Where the reason goes when an event cannot be decoded. */
  readonly log: (message: string, detail?: unknown) => void
}

export interface Processor {
  readonly name: string
  readonly categories: readonly string[]
  /** The subscription's handler: takes recorded events, decodes each once. */
  readonly handle: (event: RecordedEvent) => Promise<void>
}

/**
 * Builds a processor whose handler gets events decoded into the domain's union. An event this version cannot decode
 * (unknown type, schema mismatch) is skipped with a logged reason: retrying cannot make it readable.
 */
export const defineProcessor = <C extends Category>(definition: ProcessorDefinition<C>): Processor => ({
  name: definition.name,
  categories: definition.categories,
  handle: async (recorded) => {
    const decoded = decodeStored(definition.categories, recorded)
    if (!decoded.ok) {
      definition.log(`${definition.name} skips event ${recorded.event_id} (position ${recorded.position}): ${decoded.reason}`)
      return
    }
    const { type: _type, data: _data, ...envelope } = recorded
    await definition.handle(decoded.event, envelope)
  },
})
