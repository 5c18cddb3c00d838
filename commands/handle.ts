import { createHash, randomUUID } from 'node:crypto'
import { Effect, Either } from 'effect'
import { fold, type Decider } from '../domain/decider.js'
import { decodeEvent, encodeEvent } from '../domain/events.js'
import type { DomainEvent } from '../domain/streams.js'
import { EventStore, type EventMetadata, type EventStoreService, type NewEvent, WrongExpectedRevision, StoreUnavailable } from '../ports/event-store.js'

export interface CommandContext {
  readonly org_id: string
  readonly metadata: EventMetadata
  /**
   * When set, event ids derive from it, so a retried reaction to the same cause appends nothing new
   * (the store treats a known event id as already appended).
   */
  readonly idSeed?: string
}

export interface Handled<E> {
  readonly events: readonly E[]
  readonly revision: number
  readonly position: number
}

const MAX_CONFLICT_RETRIES = 8

/**
 * A command carries the instant it was made at, which its caller read from the Clock; its events occur at that
 * instant (so a manual clock drives `occurred_at` too, and handling reads no clock of its own).
 */
export interface Timed {
  readonly now: string
}

/** Load the stream, fold, decide, append with the expected revision; retry when another writer got there first. */
export const handle = <C extends Timed, E extends DomainEvent, S, Err>(
  decider: Decider<C, E, S, Err>,
  stream: string,
  command: C,
  ctx: CommandContext,
): Effect.Effect<Handled<E>, Err | WrongExpectedRevision | StoreUnavailable, EventStore> =>
  // Plain flatMaps rather than a generator: every command runs this, and each step of an effect costs the runtime.
  Effect.flatMap(EventStore, (store) => {
    const now = storeNow(store)
    // A store that answers in the calling turn: the whole command at once, in one step of the runtime.
    if (now !== null) {
      return Effect.suspend((): Effect.Effect<Handled<E>, Err | WrongExpectedRevision | StoreUnavailable> => {
        try {
          const handled = handleNow(decider, now, stream, command, ctx)
          return Either.isLeft(handled) ? Effect.fail(handled.left) : Effect.succeed(handled.right)
        } catch (error) {
          return error instanceof WrongExpectedRevision || error instanceof StoreUnavailable ? Effect.fail(error) : Effect.die(error)
        }
      })
    }
    const attempt = (n: number): Effect.Effect<Handled<E>, Err | WrongExpectedRevision | StoreUnavailable> => Effect.flatMap(store.readStream(stream), (history) => {
      const state = foldHistory(decider, history)
      const decided = decider.decide(command, state)
      if (Either.isLeft(decided)) return Effect.fail(decided.left)
      const events = decided.right
      const last = history[history.length - 1]
      if (events.length === 0) return Effect.succeed({ events, revision: last?.revision ?? -1, position: last?.position ?? 0 })
      return store.append(stream, storedForm(events, stream, ctx, command.now), last ? last.revision : 'no_stream').pipe(
        Effect.map((result) => ({ events, revision: result.revision, position: result.position })),
        Effect.catchTag('WrongExpectedRevision', (conflict) => (n < MAX_CONFLICT_RETRIES ? attempt(n + 1) : Effect.fail(conflict))),
      )
    })
    return attempt(1)
  })

/** A stream's state: its recorded events decoded and folded (a command's own history; a mismatch is a defect). */
export const foldHistory = <E extends DomainEvent, S>(decider: Pick<Decider<never, E, S, never>, 'initialState' | 'evolve'>, history: readonly { readonly type: string; readonly data: unknown }[]): S =>
  fold(decider, history.map((r) => decodeEvent(r.type, r.data) as E))

/** The stored form of decided events, to append to `stream`, as having occurred at `occurredAt`. */
const storedForm = (events: readonly DomainEvent[], stream: string, ctx: CommandContext, occurredAt: string): NewEvent[] =>
  events.map((event, i) => {
    const { type, data } = encodeEvent(event)
    return {
      event_id: ctx.idSeed ? deterministicId(`${ctx.idSeed}:${stream}:${i}`) : randomUUID(),
      type, data, org_id: ctx.org_id, occurred_at: occurredAt, metadata: ctx.metadata,
    }
  })

/** A stream's state as its caller folded it, and its last event's revision and position (undefined: no stream). */
export interface KnownStream<S> {
  readonly state: S
  readonly last: { readonly revision: number; readonly position: number } | undefined
}

/** A store that reads and appends in the calling turn. */
export type StoreNow = Required<Pick<EventStoreService, 'readStreamNow' | 'appendNow'>>

export const storeNow = (store: EventStoreService): StoreNow | null =>
  store.readStreamNow && store.appendNow ? (store as StoreNow) : null

/** A stream read and folded at once. */
export const loadNow = <E extends DomainEvent, S>(decider: Pick<Decider<never, E, S, never>, 'initialState' | 'evolve'>, store: StoreNow, stream: string): KnownStream<S> => {
  const history = store.readStreamNow(stream)
  const last = history[history.length - 1]
  return { state: foldHistory(decider, history), last: last && { revision: last.revision, position: last.position } }
}

/**
 * `handle` without an effect run, on a store that answers in the calling turn: from `known` (a state the caller
 * folded, so the stream is not read again) when given, reading the stream again after a conflict, as `handle` does.
 * A decision's refusal is the Left; the store's failures, and a conflict past the retries, are thrown.
 */
export const handleNow = <C extends Timed, E extends DomainEvent, S, Err>(
  decider: Decider<C, E, S, Err>,
  store: StoreNow,
  stream: string,
  command: C,
  ctx: CommandContext,
  known?: KnownStream<S>,
): Either.Either<Handled<E>, Err> => {
  for (let n = 1; ; n++) {
    const { state, last } = n === 1 && known ? known : loadNow(decider, store, stream)
    const decided = decider.decide(command, state)
    if (Either.isLeft(decided)) return Either.left(decided.left)
    const events = decided.right
    if (events.length === 0) return Either.right({ events, revision: last?.revision ?? -1, position: last?.position ?? 0 })
    try {
      const result = store.appendNow(stream, storedForm(events, stream, ctx, command.now), last ? last.revision : 'no_stream')
      return Either.right({ events, revision: result.revision, position: result.position })
    } catch (error) {
      if (!(error instanceof WrongExpectedRevision) || n >= MAX_CONFLICT_RETRIES) throw error
    }
  }
}

/** A UUID-shaped id derived from a seed (name-based, like UUID v5). */
export const deterministicId = (seed: string): string => {
  const h = createHash('sha256').update(seed).digest('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${h.slice(18, 20)}-${h.slice(20, 32)}`
}
