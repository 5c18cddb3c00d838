import { Cause, Clock, Deferred, Effect, Exit, Option } from 'effect'
import type { ClockService } from '../ports/clock.js'
import { DocumentStore, type Doc, type DocumentStoreService } from '../ports/document-store.js'
import { EventStore, StoreUnavailable, type RecordedEvent } from '../ports/event-store.js'
import { FoldView } from './document-view.js'
import type { Collection, Projection, Stored } from './projection.js'

const PATIENCE_MS = 3_000
/** Pause between two rounds of a watch, so a fast store is not asked in a tight loop. */
const ROUND_PAUSE_MS = 5
/** The same, for a store whose projections run in this process and say when they commit (a round follows each). */
const WOKEN_ROUND_PAUSE_MS = 50

interface Waiter {
  readonly id: string
  readonly position: number
  readonly deadline: number
  readonly answer: Deferred.Deferred<Doc | null, StoreUnavailable>
}

/** Per document store and collection: the requests waiting for a document to reach a position. */
const watches = new WeakMap<DocumentStoreService, Map<string, Waiter[]>>()

/**
 * Per document store whose projections run in this process (and so commit synchronously, see projection-batches):
 * the requests waiting on each collection. A round runs after each of their commits, and every WOKEN_ROUND_PAUSE_MS
 * while any request waits (for writes of other processes, and patience running out).
 */
interface Woken {
  readonly waiting: Map<string, WokenWaiter[]>
  timer: NodeJS.Timeout | null
}

interface WokenWaiter {
  readonly id: string
  readonly ready: (doc: Doc | null) => boolean
  /** Whether its wait has run out (answered null): asked at every round. */
  readonly expired: () => boolean
  readonly answer: (outcome: { readonly doc: Doc | null } | { readonly failure: StoreUnavailable }) => void
}

const woken = new WeakMap<DocumentStoreService, Woken>()

/**
 * Called by the process's projections after their writes to `docs` committed: the requests waiting on `docs` look
 * again at once, one query per collection. From the first call on, `docs` counts as a store whose projections say
 * when they commit.
 */
export const readModelsApplied = (docs: DocumentStoreService): void => {
  const known = woken.get(docs)
  if (known === undefined) woken.set(docs, { waiting: new Map(), timer: null })
  else wokenRound(docs, known)
}

const reached = (position: number) => (doc: Doc | null) => doc !== null && Number(doc._position) >= position

/**
 * One synchronous read per collection with waiting requests; answers those caught up, failed, or out of patience. A
 * store that shares unchanged documents (peekNow) is looked at without a copy per waiter and round: most waiters'
 * documents did not change since the last round, and only an answered waiter gets its own copy.
 */
const wokenRound = (docs: DocumentStoreService, known: Woken) => {
  for (const [collection, waiters] of known.waiting) {
    const found = readAtOnce(docs, collection, [...new Set(waiters.map((w) => w.id))])
    const remaining = waiters.filter((waiter) => {
      if ('failure' in found) waiter.answer(found)
      else {
        const doc = found.docs.get(waiter.id) ?? null
        if (waiter.ready(doc)) waiter.answer(found.shared && doc !== null ? ownCopy(docs, collection, waiter.id) : { doc })
        else if (waiter.expired()) waiter.answer({ doc: null })
        else return true
      }
      return false
    })
    if (remaining.length > 0) known.waiting.set(collection, remaining)
    else known.waiting.delete(collection)
  }
  if (known.waiting.size === 0 && known.timer !== null) {
    clearInterval(known.timer)
    known.timer = null
  }
}

type Reading = { readonly docs: ReadonlyMap<string, Doc>; readonly shared: boolean } | { readonly failure: StoreUnavailable }

const failureOf = (error: unknown) => ({ failure: error as StoreUnavailable })

/**
 * The documents of `ids`, read at once: shared copies where the store has them (peekNow), else one query through the
 * store's synchronous entry point, else its effect run synchronously.
 */
const readAtOnce = (docs: DocumentStoreService, collection: string, ids: readonly string[]): Reading => {
  const { peekNow, getNow } = docs
  try {
    if (peekNow && getNow) {
      const byId = new Map<string, Doc>()
      for (const id of ids) {
        const doc = peekNow(collection, id)
        if (doc !== null) byId.set(id, doc)
      }
      return { docs: byId, shared: true }
    }
    if (docs.findNow) return { docs: byIdOf(docs.findNow(collection, { _id: { $in: ids } })), shared: false }
  } catch (failure) {
    return failureOf(failure)
  }
  const found = Effect.runSyncExit(docs.find(collection, { _id: { $in: ids } }))
  if (Exit.isSuccess(found)) return { docs: byIdOf(found.value), shared: false }
  // A defect fails the waiting requests too, rather than the commit or timer that runs the round.
  const failure = Cause.failureOption(found.cause)
  return { failure: Option.isSome(failure) ? failure.value : new StoreUnavailable({ cause: Cause.squash(found.cause) }) }
}

const byIdOf = (found: readonly Doc[]) => new Map(found.map((doc) => [doc._id, doc]))

/** An answered waiter's own copy of a shared document (the same stored value, read in the same turn). */
const ownCopy = (docs: DocumentStoreService, collection: string, id: string) => {
  try {
    return { doc: docs.getNow!(collection, id) }
  } catch (failure) {
    return failureOf(failure)
  }
}

/** Adds a waiter to the rounds; answers the function that takes it out again. */
const addWaiter = (docs: DocumentStoreService, known: Woken, collection: string, waiter: WokenWaiter) => {
  const waiters = known.waiting.get(collection)
  if (waiters) waiters.push(waiter)
  else known.waiting.set(collection, [waiter])
  known.timer ??= setInterval(() => wokenRound(docs, known), WOKEN_ROUND_PAUSE_MS)
  return () => {
    const left = known.waiting.get(collection)?.filter((other) => other !== waiter) ?? []
    if (left.length > 0) known.waiting.set(collection, left)
    else known.waiting.delete(collection)
  }
}

/**
 * Waits on a store whose projections say when they commit, for the document to be `ready`: no fiber, no query per
 * request beyond the first read; answered null once `expired` says so (asked at every round, so at most
 * WOKEN_ROUND_PAUSE_MS late).
 */
const wokenWait = (
  docs: DocumentStoreService, known: Woken, collection: string, id: string, ready: (doc: Doc | null) => boolean, expired: () => boolean,
  /** The document as the caller read it just before (in the same run): not read again. */
  seen?: Doc | null,
) =>
  Effect.flatMap(seen === undefined ? docs.get(collection, id) : Effect.succeed(seen), (doc) => ready(doc) ? Effect.succeed(doc) : Effect.async<Doc | null, StoreUnavailable>((resume) => {
    const remove = addWaiter(docs, known, collection, { id, ready, expired, answer: (outcome) => resume('failure' in outcome ? Effect.fail(outcome.failure) : Effect.succeed(outcome.doc)) })
    return Effect.sync(remove)
  }))

/** wokenWait without an effect run, on a store that reads at once (`getNow`). */
const wokenWaitNow = (
  docs: DocumentStoreService, getNow: NonNullable<DocumentStoreService['getNow']>, known: Woken, collection: string, id: string,
  ready: (doc: Doc | null) => boolean, expired: () => boolean, seen?: Doc | null,
): Promise<Doc | null> => {
  const doc = seen === undefined ? getNow(collection, id) : seen
  if (ready(doc)) return Promise.resolve(doc)
  return new Promise((resolve, reject) => {
    addWaiter(docs, known, collection, { id, ready, expired, answer: (outcome) => ('failure' in outcome ? reject(outcome.failure) : resolve(outcome.doc)) })
  })
}

/**
 * One watch per collection and store: each round reads every awaited document with one query, answers the requests
 * whose document has caught up (or whose patience ran out), and goes on while any request waits. So the store sees
 * one query per round however many requests wait, rather than one poll per request.
 */
const watch = (docs: DocumentStoreService, collection: string, waiters: Waiter[], done: () => void) => Effect.gen(function* () {
  while (waiters.length > 0) {
    const ids = [...new Set(waiters.map((w) => w.id))]
    const found = yield* Effect.either(docs.find(collection, { _id: { $in: ids } }))
    const now = yield* Clock.currentTimeMillis
    const byId = new Map(found._tag === 'Right' ? found.right.map((doc) => [doc._id, doc]) : [])
    for (const waiter of [...waiters]) {
      const doc = byId.get(waiter.id)
      const answer = found._tag === 'Left'
        ? Deferred.fail(waiter.answer, found.left)
        : doc !== undefined && Number(doc._position) >= waiter.position ? Deferred.succeed(waiter.answer, doc)
          : now >= waiter.deadline ? Deferred.succeed(waiter.answer, null) : null
      if (answer === null) continue
      yield* answer
      waiters.splice(waiters.indexOf(waiter), 1)
    }
    if (waiters.length > 0) yield* Effect.sleep(ROUND_PAUSE_MS)
  }
  done()
})

/**
 * The document once it reflects the log position a command returned (documents carry the `_position` of the last
 * event applied to them), or null when the read model has not caught up in ~3 s. A command's answer and the next
 * query then agree.
 */
export const waitForPosition = <D extends Stored<object>>(collection: Collection<D>, id: string, position: number) =>
  Effect.flatMap(DocumentStore, (docs) => waitForPositionIn<D>(docs, collection, id, position))

const waitForPositionIn = <D extends Stored<object>>(docs: DocumentStoreService, collection: Collection<D>, id: string, position: number) => {
  const known = woken.get(docs)
  return (known
    ? wokenWait(docs, known, collection.name, id, reached(position), outOfPatienceAt(Date.now() + PATIENCE_MS))
    : polledWait(docs, collection.name, id, position)) as Effect.Effect<D | null, StoreUnavailable>
}

/**
 * waitForPosition without an effect run, where the store's projections commit in this process and it reads at once;
 * undefined elsewhere (then run waitForPosition). Rejects with StoreUnavailable.
 */
export const waitForPositionNow = <D extends Stored<object>>(docs: DocumentStoreService, collection: Collection<D>, id: string, position: number) => {
  const known = woken.get(docs)
  const getNow = docs.getNow
  if (known === undefined || getNow === undefined) return undefined
  return wokenWaitNow(docs, getNow, known, collection.name, id, reached(position), outOfPatienceAt(Date.now() + PATIENCE_MS)) as Promise<D | null>
}

/** A read-your-writes wait's patience: a technical timeout, not business time, so it reads the machine's clock. */
const outOfPatienceAt = (deadline: number) => () => Date.now() >= deadline

/** Whether the store's projections run in this process and say when they commit (see awaitCommitted). */
export const readModelsCommitHere = Effect.map(DocumentStore, (docs) => woken.has(docs))

/**
 * On a store whose projections commit in this process (readModelsCommitHere): the document once `ready` holds for
 * it, looked at in the turn of each of their commits (and every 50 ms, for writes of other processes), or null once
 * `clock` has reached `until` (noticed at the next of those rounds: no timer or fiber of its own). Elsewhere it dies:
 * wait on the log there, which may be ahead of the read models.
 */
export const awaitCommitted = <D extends Stored<object>>(
  collection: Collection<D>, id: string, ready: (doc: D | null) => boolean, until: { readonly clock: ClockService; readonly at: Date },
  /** The document as the caller read it just before, in the same run (then not read again). */
  seen?: D | null,
) =>
  Effect.flatMap(DocumentStore, (docs) => {
    const known = woken.get(docs)
    if (!known) return Effect.dieMessage('awaitCommitted needs a store whose projections commit in this process')
    const at = until.at.getTime()
    const expired = () => until.clock.now().getTime() >= at
    return wokenWait(docs, known, collection.name, id, ready as (doc: Doc | null) => boolean, expired, seen as Doc | null | undefined) as Effect.Effect<D | null, StoreUnavailable>
  })

/** awaitCommitted without an effect run, on a store that reads at once; undefined where awaitCommitted would not wait so. */
export const awaitCommittedNow = <D extends Stored<object>>(
  docs: DocumentStoreService, collection: Collection<D>, id: string, ready: (doc: D | null) => boolean,
  until: { readonly clock: ClockService; readonly at: Date }, seen?: D | null,
) => {
  const known = woken.get(docs)
  const getNow = docs.getNow
  if (known === undefined || getNow === undefined) return undefined
  const at = until.at.getTime()
  const expired = () => until.clock.now().getTime() >= at
  return wokenWaitNow(docs, getNow, known, collection.name, id, ready as (doc: Doc | null) => boolean, expired, seen as Doc | null | undefined) as Promise<D | null>
}

/** Waits on a store whose projections run elsewhere: a watch per collection polls it. */
const polledWait = (docs: DocumentStoreService, collection: string, id: string, position: number) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const answer = yield* Deferred.make<Doc | null, StoreUnavailable>()
    const byCollection = watches.get(docs) ?? new Map<string, Waiter[]>()
    watches.set(docs, byCollection)
    const waiters = byCollection.get(collection)
    if (waiters) waiters.push({ id, position, deadline: now + PATIENCE_MS, answer })
    else {
      const started: Waiter[] = [{ id, position, deadline: now + PATIENCE_MS, answer }]
      byCollection.set(collection, started)
      yield* Effect.forkDaemon(watch(docs, collection, started, () => byCollection.delete(collection)))
    }
    return yield* Deferred.await(answer)
  })

/**
 * The documents `projection` makes from `first`, the first event of a new stream, each created unless its id exists.
 * Answers the documents it created. The fold reads nothing from the store: a stream-ordered projection's documents are
 * touched by one stream's events only, and the event store keeps every stream for good, so before its first event none
 * of them exists (one that does was made by the projector from this very event, and its creation fails). A fold that
 * deletes, or skips the event, creates nothing.
 */
const createFolded = (create: NonNullable<DocumentStoreService['create']>, projection: Projection, first: RecordedEvent) => Effect.suspend(() => {
  const view = new FoldView(() => null)
  const outcome = view.attempt((event: RecordedEvent, documents) => projection.fold(event, documents), first)
  if (outcome !== undefined || view.writes.some((write) => write.doc === null)) return Effect.succeed([])
  // The last write of each document is the one the fold leaves.
  const last = new Map(view.writes.map((write) => [`${write.collection}\u0000${write.id}`, write]))
  return Effect.map(
    Effect.forEach([...last.values()], (write) => Effect.map(create(write.collection, write.doc!), (created) => (created ? [write] : [])), { concurrency: 'unbounded' }),
    (created) => created.flat(),
  )
})

/**
 * Read-your-writes for a document a command's new stream makes, without waiting for a projector in another process.
 * When the store creates documents atomically and the projection folds per stream and does not run in this process, the
 * command's process creates the document itself from the stream's first event (at `position`), with the projection's
 * own fold. The projector still folds that event, finds the document at its position and skips it (the position
 * guard), so the read model is the one a replay makes; and when the projector was first, the creation finds the
 * document there and waits for it as `waitForPosition` does (as it does in every other case).
 */
export const readableOnceStarted = <D extends Stored<object>>(projection: Projection, collection: Collection<D>, id: string, stream: string, position: number) =>
  Effect.flatMap(DocumentStore, (docs) => {
    const create = docs.create
    if (create === undefined || woken.has(docs) || projection.ordering !== 'stream') return waitForPositionIn(docs, collection, id, position)
    return createdOrWaited(create, projection, collection, id, stream, position)
  })

/** readableOnceStarted where the command's process creates the document itself. */
const createdOrWaited = <D extends Stored<object>>(
  create: NonNullable<DocumentStoreService['create']>, projection: Projection, collection: Collection<D>, id: string, stream: string, position: number,
) =>
  Effect.gen(function* () {
    const [first] = yield* (yield* EventStore).readStream(stream)
    if (first?.position === position) {
      const created = yield* createFolded(create, projection, first)
      const made = created.find((write) => write.collection === collection.name && write.id === id)
      if (made) return made.doc as unknown as D
    }
    return yield* waitForPosition(collection, id, position)
  })
