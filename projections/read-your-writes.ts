import { Clock, Deferred, Effect } from 'effect'
import { DocumentStore, type Doc, type DocumentStoreService } from '../ports/document-store.js'
import type { StoreUnavailable } from '../ports/event-store.js'
import type { Collection, Stored } from './projection.js'

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
 * Per document store whose projections run in this process: how many times they committed, and the watches to wake
 * after their next commit.
 */
const commits = new WeakMap<DocumentStoreService, { count: number; readonly wakes: Set<() => void> }>()

/** Called by the process's projections after their writes to `docs` committed: waiting requests look again at once. */
export const readModelsApplied = (docs: DocumentStoreService): void => {
  const known = commits.get(docs)
  if (known === undefined) {
    commits.set(docs, { count: 1, wakes: new Set() })
    return
  }
  known.count += 1
  for (const wake of [...known.wakes]) wake()
}

/** The projections' commits so far (a watch notes it before reading, so a commit made meanwhile is not missed). */
const commitCount = (docs: DocumentStoreService) => commits.get(docs)?.count ?? 0

/** The pause before a watch's next round: none when the store's projections committed since `seen`, else until they do. */
const nextRound = (docs: DocumentStoreService, seen: number) => {
  const known = commits.get(docs)
  if (known === undefined) return Effect.sleep(ROUND_PAUSE_MS)
  if (known.count !== seen) return Effect.void
  const woken = Effect.async<void>((resume) => {
    const wake = () => {
      known.wakes.delete(wake)
      resume(Effect.void)
    }
    known.wakes.add(wake)
    return Effect.sync(() => { known.wakes.delete(wake) })
  })
  return Effect.raceFirst(woken, Effect.sleep(WOKEN_ROUND_PAUSE_MS))
}

/**
 * One watch per collection and store: each round reads every awaited document with one query, answers the requests
 * whose document has caught up (or whose patience ran out), and goes on while any request waits. So the store sees
 * one query per round however many requests wait, rather than one poll per request.
 */
const watch = (docs: DocumentStoreService, collection: string, waiters: Waiter[], done: () => void) => Effect.gen(function* () {
  while (waiters.length > 0) {
    const ids = [...new Set(waiters.map((w) => w.id))]
    const seen = commitCount(docs)
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
    if (waiters.length > 0) yield* nextRound(docs, seen)
  }
  done()
})

/**
 * The document once it reflects the log position a command returned (documents carry the `_position` of the last
 * event applied to them), or null when the read model has not caught up in ~3 s. A command's answer and the next
 * query then agree.
 */
export const waitForPosition = <D extends Stored<object>>(collection: Collection<D>, id: string, position: number) =>
  Effect.gen(function* () {
    const docs = yield* DocumentStore
    const now = yield* Clock.currentTimeMillis
    const answer = yield* Deferred.make<Doc | null, StoreUnavailable>()
    const byCollection = watches.get(docs) ?? new Map<string, Waiter[]>()
    watches.set(docs, byCollection)
    const waiters = byCollection.get(collection.name)
    if (waiters) waiters.push({ id, position, deadline: now + PATIENCE_MS, answer })
    else {
      const started: Waiter[] = [{ id, position, deadline: now + PATIENCE_MS, answer }]
      byCollection.set(collection.name, started)
      yield* Effect.forkDaemon(watch(docs, collection.name, started, () => byCollection.delete(collection.name)))
    }
    return (yield* Deferred.await(answer)) as D | null
  })
