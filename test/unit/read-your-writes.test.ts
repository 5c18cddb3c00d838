import t from 'tap'
import { Cause, Effect, Fiber } from 'effect'
import { makeManualClock } from '../../infra/clock/manual.js'
import { makeMemoryDocumentStore } from '../../infra/memory/document-store.js'
import { DocumentStore, type Doc, type DocumentStoreService } from '../../ports/document-store.js'
import { StoreUnavailable } from '../../ports/event-store.js'
import { JOBS } from '../../projections/jobs.js'
import { awaitCommitted, readModelsApplied, waitForPosition } from '../../projections/read-your-writes.js'

t.test('waitForPosition answers once the document reflects the position, not before', async (t) => {
  const docs = makeMemoryDocumentStore()
  const run = <A, E>(effect: Effect.Effect<A, E, DocumentStore>) => Effect.runPromise(Effect.provideService(effect, DocumentStore, docs))
  await run(docs.put('jobs', { _id: 'j1', status: 'queued', _position: 5 }))
  t.same(await run(waitForPosition(JOBS, 'j1', 5)), { _id: 'j1', status: 'queued', _position: 5 }, 'already there')
  const answer = await run(Effect.gen(function* () {
    const waiting = yield* Effect.fork(waitForPosition(JOBS, 'j1', 7))
    yield* Effect.sleep(30)
    const early = yield* Fiber.poll(waiting)
    yield* docs.put('jobs', { _id: 'j1', status: 'running', _position: 6 })
    yield* Effect.sleep(30)
    const stillEarly = yield* Fiber.poll(waiting)
    yield* docs.put('jobs', { _id: 'j1', status: 'succeeded', _position: 7 })
    return { early, stillEarly, doc: yield* Fiber.join(waiting) }
  }))
  t.equal(answer.early._tag, 'None', 'waits while the document is behind')
  t.equal(answer.stillEarly._tag, 'None', 'a document at a lower position is not enough')
  t.equal(answer.doc?.status, 'succeeded')
  const started = Date.now()
  t.equal(await run(waitForPosition(JOBS, 'missing', 1)), null, 'null when the read model never catches up')
  t.ok(Date.now() - started >= 2900, 'after about three seconds')
})

t.test('requests waiting on one collection share one query per round, whatever their number', async (t) => {
  const docs = makeMemoryDocumentStore()
  let finds = 0
  let gets = 0
  const counting = {
    ...docs,
    find: ((...args) => { finds += 1; return docs.find(...args) }) as typeof docs.find,
    get: ((...args) => { gets += 1; return docs.get(...args) }) as typeof docs.get,
  }
  const run = <A, E>(effect: Effect.Effect<A, E, DocumentStore>) => Effect.runPromise(Effect.provideService(effect, DocumentStore, counting))
  const answers = await run(Effect.gen(function* () {
    const waiting = yield* Effect.forEach(Array.from({ length: 40 }, (_, i) => `j${i}`), (id) => Effect.fork(waitForPosition(JOBS, id, 3)))
    yield* Effect.sleep(50)
    for (let i = 0; i < 40; i++) yield* docs.put('jobs', { _id: `j${i}`, status: 'queued', _position: 3 })
    return yield* Effect.forEach(waiting, Fiber.join)
  }))
  t.ok(answers.every((doc, i) => doc?._id === `j${i}`), 'every request gets its own document')
  t.equal(gets, 0)
  t.ok(finds < 40, `${finds} queries for 40 waiting requests over several rounds`)
})

t.test('a failing read fails the waiting requests rather than leaving them waiting', async (t) => {
  const docs = makeMemoryDocumentStore()
  const failing = { ...docs, find: (() => Effect.fail(new StoreUnavailable({ cause: 'down' }))) as typeof docs.find }
  const outcome = await Effect.runPromise(Effect.either(Effect.provideService(waitForPosition(JOBS, 'j1', 1), DocumentStore, failing)))
  t.equal(outcome._tag === 'Left' && outcome.left._tag, 'StoreUnavailable')
})

t.test('on a store whose projections say when they commit, a waiting request is answered at their commit', async (t) => {
  const store = makeMemoryDocumentStore()
  // Rounds are counted by their reads, so "at the commit" is told without reading the wall clock.
  let reads = 0
  const docs = { ...store, findNow: ((...args) => { reads += 1; return store.findNow!(...args) }) as NonNullable<typeof store.findNow> }
  readModelsApplied(docs) // the store's projections run in this process from now on
  const run = <A, E>(effect: Effect.Effect<A, E, DocumentStore>) => Effect.runPromise(Effect.provideService(effect, DocumentStore, docs))
  await run(docs.put('jobs', { _id: 'j1', status: 'queued', _position: 5 }))
  t.same(await run(waitForPosition(JOBS, 'j1', 5)), { _id: 'j1', status: 'queued', _position: 5 }, 'already there: answered at once')
  const waiting = Effect.runFork(Effect.provideService(waitForPosition(JOBS, 'j1', 7), DocumentStore, docs))
  await new Promise((resolve) => setTimeout(resolve, 10))
  await run(docs.put('jobs', { _id: 'j1', status: 'running', _position: 6 }))
  readModelsApplied(docs)
  await new Promise((resolve) => setTimeout(resolve, 0))
  t.equal((await Effect.runPromise(Fiber.poll(waiting)))._tag, 'None', 'a commit leaving the document behind is not enough')
  await run(docs.put('jobs', { _id: 'j1', status: 'succeeded', _position: 7 }))
  readModelsApplied(docs)
  const readsByTheCommit = reads
  const doc = await Effect.runPromise(Fiber.join(waiting))
  t.equal(doc?.status, 'succeeded')
  t.equal(reads, readsByTheCommit, 'answered by the commit\'s round: no later round was needed (none runs once nobody waits)')
})

t.test('on such a store, a write no commit announced (another process) is still seen, and patience still runs out', async (t) => {
  const docs = makeMemoryDocumentStore()
  readModelsApplied(docs)
  const run = <A, E>(effect: Effect.Effect<A, E, DocumentStore>) => Effect.runPromise(Effect.provideService(effect, DocumentStore, docs))
  const waiting = Effect.runFork(Effect.provideService(waitForPosition(JOBS, 'j2', 3), DocumentStore, docs))
  await new Promise((resolve) => setTimeout(resolve, 10))
  await run(docs.put('jobs', { _id: 'j2', status: 'queued', _position: 3 }))
  t.equal((await Effect.runPromise(Fiber.join(waiting)))?.status, 'queued')
  const started = Date.now()
  t.equal(await run(waitForPosition(JOBS, 'missing', 1)), null, 'null when the read model never catches up')
  t.ok(Date.now() - started >= 2900, 'after about three seconds')
})

t.test('on such a store, an interrupted request stops waiting, and a failing read fails the waiting requests', async (t) => {
  const docs = makeMemoryDocumentStore()
  let failing = false
  const flaky = {
    ...docs,
    find: ((...args) => failing ? Effect.fail(new StoreUnavailable({ cause: 'down' })) : docs.find(...args)) as typeof docs.find,
    findNow: ((...args) => { if (failing) throw new StoreUnavailable({ cause: 'down' }); return docs.findNow!(...args) }) as typeof docs.findNow,
  }
  readModelsApplied(flaky)
  const wait = (id: string) => Effect.runFork(Effect.either(Effect.provideService(waitForPosition(JOBS, id, 1), DocumentStore, flaky)))
  const interrupted = wait('j3')
  const failed = wait('j4')
  await new Promise((resolve) => setTimeout(resolve, 10))
  const stopped = await Effect.runPromise(Fiber.interrupt(interrupted))
  t.ok(stopped._tag === 'Failure' && Cause.isInterruptedOnly(stopped.cause), 'the interrupted request stops waiting at once')
  failing = true
  readModelsApplied(flaky)
  const outcome = await Effect.runPromise(Fiber.join(failed))
  t.equal(outcome._tag === 'Left' && outcome.left._tag, 'StoreUnavailable')
})

t.test('awaitCommitted answers the document once it is ready, at a commit, or null once the clock reaches `until`', async (t) => {
  const docs = makeMemoryDocumentStore()
  readModelsApplied(docs)
  const run = <A, E>(effect: Effect.Effect<A, E, DocumentStore>) => Effect.runPromise(Effect.provideService(effect, DocumentStore, docs))
  const ended = (doc: { status: string } | null) => doc !== null && doc.status === 'succeeded'
  const clock = makeManualClock('2026-05-01T10:00:00Z')
  const until = { clock, at: new Date('2026-05-01T10:00:20Z') }
  await run(docs.put('jobs', { _id: 'j1', status: 'running', _position: 2 }))
  const waiting = Effect.runFork(Effect.provideService(awaitCommitted(JOBS, 'j1', ended, until), DocumentStore, docs))
  await new Promise((resolve) => setTimeout(resolve, 10))
  await run(docs.put('jobs', { _id: 'j1', status: 'succeeded', _position: 3 }))
  readModelsApplied(docs)
  t.equal((await Effect.runPromise(Fiber.join(waiting)))?.status, 'succeeded', 'answered at the commit')
  const expiring = Effect.runFork(Effect.provideService(awaitCommitted(JOBS, 'j2', ended, until), DocumentStore, docs))
  clock.set('2026-05-01T10:00:19.999Z')
  await new Promise((resolve) => setTimeout(resolve, 120))
  t.equal(expiring.unsafePoll(), null, 'still waiting while the clock has not reached `until`')
  clock.set('2026-05-01T10:00:20Z')
  const started = Date.now()
  t.equal(await Effect.runPromise(Fiber.join(expiring)), null, 'null once it has')
  t.ok(Date.now() - started < 3000, 'noticed at a round soon after')
  const elsewhere = await Effect.runPromiseExit(Effect.provideService(awaitCommitted(JOBS, 'j1', ended, until), DocumentStore, makeMemoryDocumentStore()))
  t.ok(elsewhere._tag === 'Failure' && Cause.isDie(elsewhere.cause), 'dies on a store whose projections commit elsewhere')
})

t.test('on a store that shares unchanged documents (peekNow), waiters are looked at without copies, and each answered gets its own', async (t) => {
  const docs = makeMemoryDocumentStore()
  let peeks = 0
  let copies = 0
  let failing = false
  const shared = new Map<string, Doc | null>()
  const sharing: DocumentStoreService = {
    ...docs,
    // One object per document until it changes, as a store that parses once would answer.
    peekNow: (collection, id) => {
      if (failing) throw new StoreUnavailable({ cause: 'down' })
      peeks += 1
      const doc = docs.getNow!(collection, id)
      const before = shared.get(id)
      if (before !== undefined && JSON.stringify(before) === JSON.stringify(doc)) return before
      shared.set(id, doc)
      return doc
    },
    getNow: (collection, id) => { copies += 1; return docs.getNow!(collection, id) },
    find: () => Effect.die('a store with peekNow is not queried'),
    findNow: () => { throw new Error('a store with peekNow is not queried') },
  }
  readModelsApplied(sharing)
  Effect.runSync(docs.put('jobs', { _id: 'j1', status: 'queued', _position: 1 }))
  const waiting = Effect.runFork(Effect.provideService(waitForPosition(JOBS, 'j1', 3), DocumentStore, sharing))
  const other = Effect.runFork(Effect.provideService(waitForPosition(JOBS, 'j2', 1), DocumentStore, sharing))
  await new Promise((resolve) => setTimeout(resolve, 10))
  copies = 0
  readModelsApplied(sharing)
  t.equal(peeks >= 2, true, 'each waiter\'s document peeked')
  t.equal(copies, 0, 'no copy while no waiter is answered')
  Effect.runSync(docs.put('jobs', { _id: 'j1', status: 'running', _position: 3 }))
  readModelsApplied(sharing)
  const answer = await Effect.runPromise(Fiber.join(waiting))
  t.same(answer, { _id: 'j1', status: 'running', _position: 3 })
  t.not(answer, shared.get('j1'), 'the answer is a copy of its own, not the shared document')
  t.equal(copies, 1, 'one copy, for the answered waiter')
  failing = true
  readModelsApplied(sharing)
  const failed = await Effect.runPromise(Effect.either(Fiber.join(other)))
  t.equal(failed._tag === 'Left' && failed.left._tag, 'StoreUnavailable', 'a failing peek fails the waiting requests')
})
