import t from 'tap'
import { Effect, Fiber } from 'effect'
import { makeMemoryDocumentStore } from '../../infra/memory/document-store.js'
import { DocumentStore } from '../../ports/document-store.js'
import { JOBS } from '../../projections/jobs.js'
import { waitForPosition } from '../../projections/read-your-writes.js'

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
