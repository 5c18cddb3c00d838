import { ParseResult, Schema } from 'effect'
import { fastDecoderOf, fastEncoderOf, type FastDecode, type FastEncode } from './event-validators.js'
import { upcast } from './upcasters.js'
import { DomainEvent, isCategory, STREAMS, streamCategory, type Category, type EventOf } from './streams.js'

export const SCHEMA_VERSION = 1

const decode = Schema.decodeUnknownSync(DomainEvent)
const encode = Schema.encodeSync(DomainEvent)

/**
 * Stored form: the tag becomes `type`, the rest is `data`. Encoding validates every field, so an event reaches the
 * store valid even when its decider built it without the constructor's check. The common case (a class whose fields
 * encode as they are) is checked by a compiled validator, with the schema's result.
 */
export const encodeEvent = (event: DomainEvent): { type: string; data: Record<string, unknown> } => {
  const fast = fastEncodingOf(event)?.(event)
  if (fast !== undefined) return { type: event._tag, data: fast }
  const { _tag, ...data } = encode(event) as { _tag: string } & Record<string, unknown>
  return { type: _tag, data }
}

/**
 * Decodings by recorded data: an event store hands out frozen records it holds in memory (a stream read again, the log
 * tail), and a frozen record is decoded once however many commands read it. Unfrozen data is decoded each time.
 */
const decodedData = new WeakMap<object, DomainEvent>()
const isHeld = (data: unknown): data is object => typeof data === 'object' && data !== null && Object.isFrozen(data)
const decodedOf = (type: string, data: unknown): DomainEvent | undefined => {
  const known = isHeld(data) ? decodedData.get(data) : undefined
  return known?._tag === type ? known : undefined
}
const remember = (data: unknown, event: DomainEvent): DomainEvent => {
  if (isHeld(data)) decodedData.set(data, event)
  return event
}

/** Decodes an event of a stream the caller owns (a command's own history); a mismatch is a defect. */
export const decodeEvent = (type: string, data: unknown): DomainEvent =>
  decodedOf(type, data) ?? remember(data, decode({ ...(upcast(type, data) as object), _tag: type }))

/** Each category's event classes by type (a union of one member is the member itself). */
const membersOf = (schema: Schema.Schema.AnyNoContext): readonly Schema.Schema.AnyNoContext[] =>
  Schema.isSchema(schema) && 'members' in schema ? (schema.members as readonly Schema.Schema.AnyNoContext[]).flatMap(membersOf) : [schema]
const CLASSES_BY_CATEGORY = new Map(Object.values(STREAMS).map((entry) => [
  entry.name, new Map(membersOf(entry.events as Schema.Schema.AnyNoContext).map((member) => [String((member as unknown as { identifier: string }).identifier), member])),
]))

/** Fast encodings by event class, compiled on first use (null: the class does not qualify); only classes of the catalogue. */
const CATALOGUE_CLASSES = new Set<unknown>([...CLASSES_BY_CATEGORY.values()].flatMap((classes) => [...classes.values()]))
const fastEncodings = new Map<unknown, FastEncode | null>()
const fastEncodingOf = (event: DomainEvent): FastEncode | null => {
  const Class = event.constructor
  let found = fastEncodings.get(Class)
  if (found === undefined) {
    found = CATALOGUE_CLASSES.has(Class) ? fastEncoderOf(Class as unknown as Schema.Schema.AnyNoContext) ?? null : null
    fastEncodings.set(Class, found)
  }
  return found
}

const TYPES_BY_CATEGORY = new Map<string, ReadonlySet<string>>([...CLASSES_BY_CATEGORY].map(([name, classes]) => [name, new Set(classes.keys())]))
const KNOWN_TYPES = new Set([...TYPES_BY_CATEGORY.values()].flatMap((types) => [...types]))

export const isKnownEventType = (type: string): boolean => KNOWN_TYPES.has(type)

/** The event types a category's streams hold (each type belongs to one category: the union is told apart by type). */
export const eventTypesOf = (category: Category): ReadonlySet<string> => TYPES_BY_CATEGORY.get(category)!

export type StoredDecoding<E> =
  | { readonly ok: true; readonly event: E }
  | { readonly ok: false; readonly reason: string }

const decoders = new Map(Object.values(STREAMS).map((entry) => [entry.name, Schema.decodeUnknownEither(entry.events as Schema.Schema.AnyNoContext)]))

/**
 * Decodes a recorded event of one of `categories` by its stream's catalogue entry. An event this version cannot read
 * (another category, a type it does not know, such as one written by a newer version or waiting for an upcaster, or
 * data that does not match its schema) answers why, naming the failing fields but never their values.
 */
export const decodeStored = <C extends Category>(
  categories: readonly C[],
  recorded: { readonly stream: string; readonly type: string; readonly data: unknown },
): StoredDecoding<EventOf<C>> => decodeStoredEvent(categories, recorded, true)

/**
 * decodeStored for a caller that decodes each recorded event once and shares the result itself (replay): the decoding
 * is not remembered by the recorded event (a WeakMap entry per event of a whole log is garbage collection's work).
 */
export const decodeStoredOnce = <C extends Category>(
  categories: readonly C[],
  recorded: { readonly stream: string; readonly type: string; readonly data: unknown },
): StoredDecoding<EventOf<C>> => decodeStoredEvent(categories, recorded, false)

const decodeStoredEvent = <C extends Category>(
  categories: readonly C[],
  recorded: { readonly stream: string; readonly type: string; readonly data: unknown },
  rememberDecoding: boolean,
): StoredDecoding<EventOf<C>> => {
  const name = streamCategory(recorded.stream)
  if (!isCategory(name) || !(categories as readonly string[]).includes(name)) {
    return { ok: false, reason: `stream ${recorded.stream} is not of the categories ${categories.join(', ')}` }
  }
  if (!TYPES_BY_CATEGORY.get(name)!.has(recorded.type)) {
    return { ok: false, reason: `unknown event type ${recorded.type} in a ${name} stream (written by a newer version, or in need of an upcaster)` }
  }
  if (!rememberDecoding) return decodeOfCategory(name, recorded) as StoredDecoding<EventOf<C>>
  let decoded = decodedOnce.get(recorded)
  if (!decoded) decodedOnce.set(recorded, (decoded = decodeOfCategory(name, recorded)))
  return decoded as StoredDecoding<EventOf<C>>
}

/**
 * Decodings by recorded event: the projections and processors that get the same recorded event (replay hands one to
 * all of them) decode it once. Decoded events are immutable values, so sharing one is safe.
 */
const decodedOnce = new WeakMap<object, StoredDecoding<DomainEvent>>()

/**
 * Fast decodings by category, then type, compiled on first use (null: the type does not qualify). Two lookups rather
 * than one by a joined key: no string built per event decoded.
 */
const fastDecodings = new Map<string, Map<string, FastDecode | null>>()
const fastDecodingOf = (name: Category, type: string): FastDecode | null => {
  let ofCategory = fastDecodings.get(name)
  if (ofCategory === undefined) fastDecodings.set(name, (ofCategory = new Map()))
  let found = ofCategory.get(type)
  if (found === undefined) {
    const member = CLASSES_BY_CATEGORY.get(name)?.get(type)
    ofCategory.set(type, (found = member ? fastDecoderOf(member) ?? null : null))
  }
  return found
}

const decodeOfCategory = (name: Category, recorded: { readonly type: string; readonly data: unknown }): StoredDecoding<DomainEvent> => {
  // The same frozen record may reach a subscriber as another object (the log tail's) than a command's stream read.
  const known = decodedOf(recorded.type, recorded.data)
  if (known !== undefined) return { ok: true, event: known }
  // The common case (data of exactly the schema's shape) with a compiled validator; the rest by the schema.
  const data = upcast(recorded.type, recorded.data)
  const fast = fastDecodingOf(name, recorded.type)?.(data)
  if (fast !== undefined) return { ok: true, event: remember(recorded.data, fast as DomainEvent) }
  const decoded = decoders.get(name)!({ ...(data as object), _tag: recorded.type })
  if (decoded._tag === 'Right') return { ok: true, event: remember(recorded.data, decoded.right as DomainEvent) }
  const fields = [...new Set(ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map((issue) => issue.path.join('.') || '(event)'))]
  return { ok: false, reason: `${recorded.type} does not match its schema at ${fields.join(', ')}` }
}
