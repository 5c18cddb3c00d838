import { Effect } from 'effect'
import type { Test } from 'tap'
import type { Doc, DocumentStoreService, Filter, FindOptions } from '../../ports/document-store.js'
import type { StoreUnavailable } from '../../ports/event-store.js'

/** The DocumentStore port's contract: every adapter (SQLite, MongoDB, ...) must pass it unchanged. */
export interface DocumentStoreFixture {
  readonly store: DocumentStoreService
  readonly cleanup: () => Promise<void>
}

const people: Doc[] = [
  { _id: 'a', name: 'Alice Martin', age: 31, team: 'red', tags: ['x', 'y'], created_at: '2024-01-05T10:00:00.000Z', address: { city: 'Paris', zip: '75001' }, manager: null, active: true },
  { _id: 'b', name: 'Bob Stone', age: 25, team: 'blue', tags: ['y'], created_at: '2024-02-10T10:00:00.000Z', address: { city: 'Lyon', zip: '69001' }, manager: 'a', active: false },
  { _id: 'c', name: 'Carol MARTINEZ', age: 40, team: 'red', tags: [], created_at: '2024-03-15T10:00:00.000Z', address: { city: 'Paris', zip: '75002' }, manager: 'a', active: true },
  { _id: 'd', name: 'Dan Brown', age: 25, team: 'green', tags: ['z', 'x'], created_at: '2024-04-20T10:00:00.000Z', address: { city: 'Nice', zip: '06000' }, manager: null, active: true },
]

export const documentStoreContract = (t: Test, name: string, make: () => Promise<DocumentStoreFixture>) =>
  t.test(`DocumentStore contract: ${name}`, async (t) => {
    const { store, cleanup } = await make()
    t.teardown(cleanup)
    let n = 0
    const fresh = () => `contract_${++n}`
    const run = <A>(e: Effect.Effect<A, unknown>) => Effect.runPromise(e)
    const seeded = async () => {
      const c = fresh()
      for (const doc of people) await run(store.put(c, doc))
      return c
    }
    /** Ids of the matches; sorted when no sort is asked for, since the port leaves that order open. */
    const ids = async (c: string, filter: Filter, options?: FindOptions) => {
      const found = (await run(store.find(c, filter, options))).map((d) => d._id)
      return options?.sort ? found : found.sort()
    }

    t.test('get / put / delete', async (t) => {
      const c = fresh()
      t.equal(await run(store.get(c, 'a')), null, 'missing answers null')
      await run(store.put(c, people[0]!))
      t.same(await run(store.get(c, 'a')), people[0], 'round-trips the whole document')
      await run(store.put(c, { _id: 'a', name: 'Replaced' }))
      t.same(await run(store.get(c, 'a')), { _id: 'a', name: 'Replaced' }, 'put replaces, it does not merge')
      await run(store.delete(c, 'a'))
      t.equal(await run(store.get(c, 'a')), null)
      await run(store.delete(c, 'a'))
      t.pass('deleting a missing document is fine')
    })

    t.test('equality, on scalars and on array elements', async (t) => {
      const c = await seeded()
      t.same(await ids(c, { team: 'red' }), ['a', 'c'])
      t.same(await ids(c, { age: 25 }), ['b', 'd'])
      t.same(await ids(c, { active: false }), ['b'])
      t.same(await ids(c, { _id: 'c' }), ['c'])
      t.same(await ids(c, { tags: 'x' }), ['a', 'd'], 'array field matches any element')
      t.same(await ids(c, { team: 'red', age: 40 }), ['c'], 'conditions are and-ed')
      t.same(await ids(c, { team: 'purple' }), [])
      t.same(await ids(c, { address: 'Paris' }), [], 'an object field does not equal one of its members')
    })

    t.test('null equality', async (t) => {
      const c = await seeded()
      t.same(await ids(c, { manager: null }), ['a', 'd'])
      t.same(await ids(c, { manager: 'a' }), ['b', 'c'])
    })

    t.test('$in, also on array fields', async (t) => {
      const c = await seeded()
      t.same(await ids(c, { team: { $in: ['blue', 'green'] } }), ['b', 'd'])
      t.same(await ids(c, { age: { $in: [31, 40] } }), ['a', 'c'])
      t.same(await ids(c, { tags: { $in: ['z', 'y'] } }), ['a', 'b', 'd'])
      t.same(await ids(c, { _id: { $in: ['d', 'a'] } }), ['a', 'd'])
      t.same(await ids(c, { team: { $in: [] } }), [], 'empty $in matches nothing')
    })

    t.test('$nin: none of the values, also on array fields; a missing field matches', async (t) => {
      const c = await seeded()
      t.same(await ids(c, { team: { $nin: ['red', 'blue'] } }), ['d'])
      t.same(await ids(c, { manager: { $nin: ['a'] } }), ['a', 'd'], 'a null or missing field is none of them')
      t.same(await ids(c, { tags: { $nin: ['x'] } }), ['b', 'c'], 'an array holding one of them does not match')
      t.same(await ids(c, { _id: { $nin: ['d', 'a'] } }), ['b', 'c'])
      t.same(await ids(c, { team: { $nin: [] } }), ['a', 'b', 'c', 'd'], 'empty $nin matches everything')
    })

    t.test('ranges on numbers and ISO strings', async (t) => {
      const c = await seeded()
      t.same(await ids(c, { age: { $gt: 25 } }), ['a', 'c'])
      t.same(await ids(c, { age: { $gte: 31 } }), ['a', 'c'])
      t.same(await ids(c, { age: { $lt: 31 } }), ['b', 'd'])
      t.same(await ids(c, { age: { $lte: 31 } }), ['a', 'b', 'd'])
      t.same(await ids(c, { age: { $gt: 25, $lt: 40 } }), ['a'], 'bounds combine')
      t.same(await ids(c, { created_at: { $gte: '2024-02-10T10:00:00.000Z', $lt: '2024-04-20T10:00:00.000Z' } }), ['b', 'c'])
      t.same(await ids(c, { created_at: { $gt: '2024-03-15T10:00:00.000Z' } }), ['d'])
    })

    t.test('$contains is a case-insensitive substring', async (t) => {
      const c = await seeded()
      t.same(await ids(c, { name: { $contains: 'martin' } }), ['a', 'c'])
      t.same(await ids(c, { name: { $contains: 'BROWN' } }), ['d'])
      t.same(await ids(c, { name: { $contains: 'zzz' } }), [])
      t.same(await ids(c, { name: { $contains: '%' } }), [], 'no wildcard semantics')
      await run(store.put(c, { _id: 'e', name: 'ÉLODIE Ørsted' }))
      t.same(await ids(c, { name: { $contains: 'élodie ørs' } }), ['e'], 'case-insensitive beyond ASCII')
    })

    t.test('dotted paths', async (t) => {
      const c = await seeded()
      t.same(await ids(c, { 'address.city': 'Paris' }), ['a', 'c'])
      t.same(await ids(c, { 'address.zip': { $gte: '69001', $lt: '75002' } }), ['a', 'b'])
      t.same(await ids(c, { 'address.city': 'Paris' }, { sort: [['address.zip', 'desc']] }), ['c', 'a'])
    })

    t.test('sort asc/desc on several keys, skip, limit', async (t) => {
      const c = await seeded()
      t.same(await ids(c, {}, { sort: [['age', 'asc'], ['name', 'desc']] }), ['d', 'b', 'a', 'c'])
      t.same(await ids(c, {}, { sort: [['age', 'desc'], ['name', 'asc']] }), ['c', 'a', 'b', 'd'])
      t.same(await ids(c, {}, { sort: [['created_at', 'desc']] }), ['d', 'c', 'b', 'a'])
      t.same(await ids(c, {}, { sort: [['created_at', 'asc']], skip: 1, limit: 2 }), ['b', 'c'])
      t.same(await ids(c, {}, { sort: [['created_at', 'asc']], skip: 3 }), ['d'], 'skip without limit')
      t.same(await ids(c, {}, { sort: [['created_at', 'asc']], limit: 1 }), ['a'])
      t.same(await ids(c, { team: 'red' }, { sort: [['age', 'desc']], limit: 1 }), ['c'], 'filter, sort and limit together')
    })

    t.test('count with filters', async (t) => {
      const c = await seeded()
      t.equal(await run(store.count(c, {})), 4)
      t.equal(await run(store.count(c, { team: 'red' })), 2)
      t.equal(await run(store.count(c, { tags: 'x', age: { $lt: 30 } })), 1)
      t.equal(await run(store.count(fresh(), {})), 0)
    })

    t.test('collections are isolated; clear empties one collection only', async (t) => {
      const one = await seeded()
      const two = fresh()
      await run(store.put(two, { _id: 'a', name: 'other' }))
      t.equal((await run(store.get(two, 'a')))?.name, 'other')
      t.equal((await run(store.get(one, 'a')))?.name, 'Alice Martin', 'same id in another collection untouched')
      t.same(await ids(two, {}), ['a'])
      await run(store.delete(two, 'a'))
      t.ok(await run(store.get(one, 'a')), 'delete is per collection')
      await run(store.put(two, { _id: 'z' }))
      await run(store.clear(one))
      t.equal(await run(store.count(one, {})), 0)
      t.same(await ids(two, {}), ['z'], 'clear leaves other collections alone')
    })

    t.test('declared indexes can be ensured repeatedly and change no answer', async (t) => {
      const c = await seeded()
      const before = await ids(c, { team: 'red' }, { sort: [['created_at', 'desc']] })
      const declared = [{ collection: c, fields: [['team', 1], ['created_at', -1]] as const }, { collection: fresh(), fields: [['age', 1]] as const }]
      await run(store.ensureIndexes(declared))
      await run(store.ensureIndexes(declared))
      t.same(await ids(c, { team: 'red' }, { sort: [['created_at', 'desc']] }), before)
      t.same(before, ['c', 'a'])
    })

    t.test('a batch answers its work and keeps its writes; reads inside see them', async (t) => {
      const c = fresh()
      const answer = await run(store.inBatch(Effect.gen(function* () {
        yield* store.put(c, { _id: 'x', n: 1 })
        yield* store.put(c, { _id: 'x', n: 2 })
        return (yield* store.get(c, 'x'))?.n
      })))
      t.equal(answer, 2, 'a write is visible to a later read of the same batch')
      t.same(await run(store.get(c, 'x')), { _id: 'x', n: 2 }, 'kept after the batch')
      const failed = await Effect.runPromise(Effect.either(store.inBatch(Effect.fail('stop' as const))))
      t.equal(failed._tag, 'Left', "a failing batch answers the work's failure")
      t.same(await run(store.get(c, 'x')), { _id: 'x', n: 2 }, 'and the store stays usable')
    })

    t.test('inside a batch, a read of a key sees the batch\'s own last write of it', async (t) => {
      const c = fresh()
      await run(store.put(c, { _id: 'old', n: 0 }))
      const seen = await run(store.inBatch(Effect.gen(function* () {
        const written: Doc = { _id: 'new', n: 1, tags: ['a'] }
        yield* store.put(c, written)
        ;(written.tags as string[]).push('changed after the put')
        const read = yield* store.get(c, 'new')
        const fresh = structuredClone(read)
        ;(read!.tags as string[]).push('changed after the get')
        yield* store.put(c, { _id: 'old', n: 5 })
        yield* store.delete(c, 'gone')
        const replaced = yield* store.get(c, 'old')
        yield* store.delete(c, 'old')
        return { fresh, replaced, deleted: yield* store.get(c, 'old'), again: yield* store.get(c, 'new') }
      })))
      t.same(seen.fresh, { _id: 'new', n: 1, tags: ['a'] }, 'a new document, as it was put')
      t.same(seen.again, { _id: 'new', n: 1, tags: ['a'] }, 'changing objects after a put or a get changes nothing stored')
      t.same(seen.replaced, { _id: 'old', n: 5 }, 'a document replaced in the batch')
      t.equal(seen.deleted, null, 'a document deleted in the batch')
      t.same(await run(store.get(c, 'new')), { _id: 'new', n: 1, tags: ['a'] }, 'kept after the batch')
      t.equal(await run(store.get(c, 'old')), null, 'the deletion too')
    })

    t.test('inside a batch, queries and counts see every earlier write of the batch', async (t) => {
      const c = await seeded()
      const seen = await run(store.inBatch(Effect.gen(function* () {
        yield* store.put(c, { _id: 'e', name: 'Eve Martin', age: 25, team: 'red' })
        yield* store.put(c, { ...people[1]!, team: 'red' })
        yield* store.delete(c, 'a')
        const red = (yield* store.find(c, { team: 'red' }, { sort: [['age', 'asc'], ['name', 'asc']] })).map((d) => d._id)
        const redCount = yield* store.count(c, { team: 'red' })
        yield* store.put(c, { _id: 'f', team: 'red', age: 50 })
        yield* store.delete(c, 'c')
        const afterQuery = (yield* store.find(c, { team: 'red' })).map((d) => d._id).sort()
        return { red, redCount, afterQuery, f: yield* store.get(c, 'f'), total: yield* store.count(c, {}) }
      })))
      t.same(seen.red, ['b', 'e', 'c'], 'a find sees puts, replacements and deletions made before it')
      t.equal(seen.redCount, 3, 'so does a count')
      t.same(seen.afterQuery, ['b', 'e', 'f'], 'writes after a query are seen by the next query')
      t.same(seen.f, { _id: 'f', team: 'red', age: 50 })
      t.equal(seen.total, 4)
      t.same(await ids(c, {}), ['b', 'd', 'e', 'f'], 'everything kept after the batch')
    })

    t.test('inside a batch, a cleared collection holds only what the batch writes after the clear', async (t) => {
      const c = await seeded()
      const seen = await run(store.inBatch(Effect.gen(function* () {
        yield* store.put(c, { _id: 'before-clear', n: 1 })
        yield* store.clear(c)
        const cleared = { a: yield* store.get(c, 'a'), early: yield* store.get(c, 'before-clear'), count: yield* store.count(c, {}) }
        yield* store.put(c, { _id: 'b', n: 2 })
        yield* store.put(c, { _id: 'x', n: 3 })
        yield* store.count(c, {})
        yield* store.put(c, { _id: 'x', n: 4 })
        yield* store.delete(c, 'b')
        yield* store.delete(c, 'never-written')
        return { cleared, x: yield* store.get(c, 'x'), b: yield* store.get(c, 'b') }
      })))
      t.same(seen.cleared, { a: null, early: null, count: 0 }, 'older documents and earlier writes of the batch are gone')
      t.same(seen.x, { _id: 'x', n: 4 }, 'a document written, sent by a query, then rewritten')
      t.equal(seen.b, null, 'a document written, sent, then deleted')
      t.same(await run(store.find(c, {})), [{ _id: 'x', n: 4 }], 'after the batch')
    })

    t.test('writes of fibers forked inside a batch join it', async (t) => {
      const c = fresh()
      const inside = await run(store.inBatch(Effect.gen(function* () {
        yield* Effect.forEach(Array.from({ length: 40 }, (_, i) => i), (i) => store.put(c, { _id: `d${String(i).padStart(2, '0')}`, i }), { concurrency: 8 })
        return { count: yield* store.count(c, {}), last: yield* store.get(c, 'd39') }
      })))
      t.equal(inside.count, 40)
      t.same(inside.last, { _id: 'd39', i: 39 })
      t.equal(await run(store.count(c, {})), 40)
    })

    t.test('a batch rewriting a few hundred existing documents', async (t) => {
      const c = fresh()
      const all = Array.from({ length: 300 }, (_, i) => `d${String(i).padStart(3, '0')}`)
      await run(store.inBatch(Effect.forEach(all, (id) => store.put(c, { _id: id, round: 1 }), { discard: true })))
      await run(store.inBatch(Effect.forEach(all, (id, i) => (i % 3 === 0 ? store.delete(c, id) : store.put(c, { _id: id, round: 2 })), { discard: true })))
      t.equal(await run(store.count(c, { round: 2 })), 200)
      t.equal(await run(store.count(c, {})), 200, 'a third deleted')
      t.equal(await run(store.get(c, 'd000')), null)
      t.same(await run(store.get(c, 'd299')), { _id: 'd299', round: 2 })
    })

    t.test('the synchronous entry points come all together or not at all', async (t) => {
      const present = [store.getNow, store.findNow, store.putNow, store.deleteNow, store.inBatchNow].map((entry) => entry !== undefined)
      t.ok(present.every((p) => p === present[0]), `present: ${present.join(', ')}`)
    })

    const inBatchNow = store.inBatchNow
    if (inBatchNow === undefined) return
    t.test('inBatchNow answers its work and keeps its writes; reads inside see them; a nested batch joins', async (t) => {
      const c = fresh()
      const answer = inBatchNow(() => {
        store.putNow!(c, { _id: 'x', n: 1 })
        inBatchNow(() => store.putNow!(c, { _id: 'x', n: 2 }))
        store.putNow!(c, { _id: 'y', n: 3 })
        return { x: store.getNow!(c, 'x'), found: store.findNow!(c, {}).map((d) => d._id) }
      })
      t.same(answer, { x: { _id: 'x', n: 2 }, found: ['x', 'y'] })
      t.same(await run(store.find(c, {})), [{ _id: 'x', n: 2 }, { _id: 'y', n: 3 }], 'kept after the batch, seen by the effects')
    })

    t.test('a throwing inBatchNow throws on; with atomic batches its writes are undone', async (t) => {
      const c = fresh()
      await run(store.put(c, { _id: 'kept', n: 1 }))
      const stop = new Error('stop')
      t.throws(() => inBatchNow(() => {
        store.putNow!(c, { _id: 'kept', n: 2 })
        store.putNow!(c, { _id: 'new', n: 1 })
        throw stop
      }), stop)
      if (store.atomicBatches) t.same(await run(store.find(c, {})), [{ _id: 'kept', n: 1 }], 'rolled back')
      store.putNow!(c, { _id: 'after', n: 1 })
      t.same(store.getNow!(c, 'after'), { _id: 'after', n: 1 }, 'and the store stays usable')
    })

    t.test('a synchronous entry that fails throws StoreUnavailable', async (t) => {
      const c = await seeded()
      let thrown: unknown = null
      try { store.findNow!(c, { 'bad path!': 1 }) } catch (e) { thrown = e }
      t.match(thrown, { _tag: 'StoreUnavailable' })
    })
  })

/**
 * The store with get, find, put and delete answered by its synchronous entry points (batches and the rest as they
 * are), so the whole contract runs against those too.
 */
export const throughNowEntries = (store: DocumentStoreService): DocumentStoreService => {
  const { getNow, findNow, putNow, deleteNow } = store
  if (!getNow || !findNow || !putNow || !deleteNow) throw new Error('the store has no synchronous entry points')
  const attempt = <A>(f: () => A) => Effect.try({ try: f, catch: (e) => e as StoreUnavailable })
  return {
    ...store,
    get: (collection, id) => attempt(() => getNow(collection, id)),
    find: (collection, filter, options) => attempt(() => findNow(collection, filter, options)),
    put: (collection, doc) => attempt(() => putNow(collection, doc)),
    delete: (collection, id) => attempt(() => deleteNow(collection, id)),
  }
}
