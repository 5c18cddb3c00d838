import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { Effect, Either } from 'effect'
import { makeCatchUpLog } from '../../infra/log/catch-up.js'
import { documentCheckpoints } from '../../infra/log/document-checkpoints.js'
import { makeStagedTokensDocuments } from '../../infra/mail/staged-tokens-documents.js'
import { sqliteCatchUpLog } from '../../infra/sqlite/checkpoints.js'
import { makeSqliteDocumentStore } from '../../infra/sqlite/document-store.js'
import { makeSqliteEventStore } from '../../infra/sqlite/event-store.js'
import { makeSqliteAuditTrail } from '../../infra/sqlite/audit-trail.js'
import type { RecordedEvent } from '../../ports/event-store.js'
import { appendAll, auditTrailContract, recordIntoReadModel } from './audit-trail.contract.js'
import { documentStoreContract, throughNowEntries as documentsThroughNowEntries } from './document-store.contract.js'
import { eventLogContract } from './event-log.contract.js'
import { eventStoreContract, throughNowEntries as eventsThroughNowEntries } from './event-store.contract.js'
import { mailOutboxContract } from './mail-outbox.contract.js'

/** A fresh temp folder per fixture, removed by its cleanup. */
const tempFile = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-contract-'))
  return { file: join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) }
}

eventStoreContract(t, 'SQLite', async () => {
  const { file, remove } = tempFile('events.db')
  const store = makeSqliteEventStore(file)
  return { store, cleanup: async () => { store.db.close(); remove() } }
})

documentStoreContract(t, 'SQLite', async () => {
  const { file, remove } = tempFile('docs.db')
  const store = makeSqliteDocumentStore(file)
  return { store, cleanup: async () => { store.db.close(); remove() } }
})

eventStoreContract(t, 'SQLite, through its synchronous entry points', async () => {
  const { file, remove } = tempFile('events.db')
  const store = makeSqliteEventStore(file)
  return { store: eventsThroughNowEntries(store), cleanup: async () => { store.db.close(); remove() } }
})

documentStoreContract(t, 'SQLite, through its synchronous entry points', async () => {
  const { file, remove } = tempFile('docs.db')
  const store = makeSqliteDocumentStore(file)
  return { store: documentsThroughNowEntries(store), cleanup: async () => { store.db.close(); remove() } }
})

auditTrailContract(t, 'read from the SQLite event log (embedded)', async () => {
  const { file, remove } = tempFile('events.db')
  const store = makeSqliteEventStore(file)
  const record = async (appended: Parameters<typeof appendAll>[1]) => {
    await appendAll(store, appended)
    return makeSqliteAuditTrail(store.db)
  }
  return { record, cleanup: async () => { store.db.close(); remove() } }
})

auditTrailContract(t, 'read model in the SQLite document store', async () => {
  const { file, remove } = tempFile('docs.db')
  const docs = makeSqliteDocumentStore(file)
  return { record: recordIntoReadModel(docs), cleanup: async () => { docs.db.close(); remove() } }
})

eventLogContract(t, 'SQLite catch-up', async () => {
  const { file, remove } = tempFile('events.db')
  const store = makeSqliteEventStore(file)
  const log = sqliteCatchUpLog(store, { pollIntervalMs: 20 })
  return { store, log, cleanup: async () => { store.db.close(); remove() } }
})

// The combination an event store without a checkpoint table uses (infra/app-layer.ts): checkpoints in the document store.
eventLogContract(t, 'SQLite catch-up, checkpoints in the SQLite document store', async () => {
  const { file, remove } = tempFile('events.db')
  const store = makeSqliteEventStore(file)
  const docs = makeSqliteDocumentStore(file.replace(/events\.db$/, 'docs.db'))
  const log = makeCatchUpLog(store, documentCheckpoints(docs), { pollIntervalMs: 20, appended: store.appended })
  return {
    store, log,
    cleanup: async () => { store.db.close(); docs.db.close(); remove() },
  }
})

mailOutboxContract(t, 'staged tokens in the SQLite document store', async () => {
  const { file, remove } = tempFile('docs.db')
  const docs = makeSqliteDocumentStore(file)
  return { outbox: makeStagedTokensDocuments(docs), cleanup: async () => { docs.db.close(); remove() } }
})

t.test('SQLite: the log read ahead on a thread answers each batch as readAll does', async (t) => {
  const { file, remove } = tempFile('events.db')
  const store = makeSqliteEventStore(file)
  t.teardown(() => { store.db.close(); remove() })
  const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
  const metadata = { correlation_id: 'c', causation_id: null, actor: 'tester' }
  for (let n = 0; n < 7; n++) {
    await run(store.append(`job-${n}`, [0, 1].map((i) => ({
      event_id: `e-${n}-${i}`, type: 'Noted', org_id: 'org', occurred_at: '2026-01-01T00:00:00.000Z', metadata,
      data: { n, i, text: n === 3 ? 'naïve — ünïcode 🎉' : 'plain', nested: { list: [n, i], none: null } },
    })), 'no_stream'))
  }
  const ahead = await run(Effect.scoped(Effect.gen(function* () {
    const reader = yield* store.readAllAhead!(2, 5)
    const batches: (readonly RecordedEvent[])[] = []
    for (;;) {
      const batch = yield* reader.next
      batches.push(batch)
      if (batch.length === 0) return batches
    }
  })))
  const direct: (readonly RecordedEvent[])[] = []
  for (let after = 2; ;) {
    const batch = await run(store.readAll(after, 5))
    direct.push(batch)
    if (batch.length === 0) break
    after = batch[batch.length - 1]!.position
  }
  t.same(ahead.map((batch) => batch.length), [5, 5, 2, 0])
  t.strictSame(ahead, direct.map((batch) => batch.map((event) => ({ ...event }))))
})

t.test('SQLite: a batch run off the thread reads its own writes and commits only when its work succeeds', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-batch-'))
  const store = makeSqliteDocumentStore(join(dir, 'docs.db'))
  t.teardown(() => { store.db.close(); rmSync(dir, { recursive: true, force: true }) })
  const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
  const offThread = store.inBatchOffThread!
  await run(store.putMany!('c', [{ _id: 'kept', n: 1, team: 'red' }, { _id: 'gone', n: 0, team: 'red' }]))

  const seen = await run(offThread((batch) => Effect.gen(function* () {
    yield* batch.insertMany!('c', [{ _id: 'new', n: 5, team: 'blue' }])
    yield* batch.putMany!('c', [{ _id: 'kept', n: 2, team: 'blue' }])
    yield* batch.delete('c', 'gone')
    return {
      kept: yield* batch.get('c', 'kept'), gone: yield* batch.get('c', 'gone'),
      blue: yield* batch.find('c', { team: 'blue' }, { sort: [['n', 'desc']] }), count: yield* batch.count('c', {}),
      outside: yield* store.get('c', 'kept'),
    }
  })))
  t.same(seen, {
    kept: { _id: 'kept', n: 2, team: 'blue' }, gone: null,
    blue: [{ _id: 'new', n: 5, team: 'blue' }, { _id: 'kept', n: 2, team: 'blue' }], count: 2,
    outside: { _id: 'kept', n: 1, team: 'red' },
  }, 'its reads see its writes; the store\'s own connection does not until the commit')
  t.same(await run(store.find('c', {}, { sort: [['_id', 'asc']] })), [{ _id: 'kept', n: 2, team: 'blue' }, { _id: 'new', n: 5, team: 'blue' }], 'committed')

  const failed = await run(Effect.either(offThread((batch) => Effect.zipRight(batch.clear('c'), Effect.fail('stop' as const)))))
  t.same(failed, Either.left('stop'), 'the work\'s failure')
  t.equal(await run(store.count('c', {})), 2, 'a failed work leaves nothing of its writes')

  const duplicate = await run(Effect.either(offThread((batch) => Effect.gen(function* () {
    yield* batch.clear('c')
    yield* batch.insertMany!('c', [{ _id: 'kept', n: 3 }, { _id: 'kept', n: 4 }])
  }))))
  t.equal(duplicate._tag, 'Left', 'a statement that failed on the thread fails the batch')
  t.equal(await run(store.count('c', {})), 2, 'and leaves nothing of its writes')
  t.same(await run(store.get('c', 'kept')), { _id: 'kept', n: 2, team: 'blue' })
})

t.test('SQLite: a failing batch leaves none of its writes', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-batch-'))
  const store = makeSqliteDocumentStore(join(dir, 'docs.db'))
  t.teardown(() => { store.db.close(); rmSync(dir, { recursive: true, force: true }) })
  await Effect.runPromise(store.put('c', { _id: 'kept', n: 1 }))
  const work = Effect.gen(function* () {
    yield* store.put('c', { _id: 'kept', n: 2 })
    yield* store.put('c', { _id: 'new', n: 1 })
    return yield* Effect.fail('stop' as const)
  })
  t.equal((await Effect.runPromise(Effect.either(store.inBatch(work))))._tag, 'Left')
  t.same(await Effect.runPromise(store.get('c', 'kept')), { _id: 'kept', n: 1 }, 'the earlier value is back')
  t.equal(await Effect.runPromise(store.get('c', 'new')), null, 'the new document is gone')
})

t.test('SQLite: a collection\'s generation moves with every change to it, whoever made it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-generation-'))
  const store = makeSqliteDocumentStore(join(dir, 'docs.db'))
  const other = makeSqliteDocumentStore(join(dir, 'docs.db'))
  t.teardown(() => { store.db.close(); other.db.close(); rmSync(dir, { recursive: true, force: true }) })
  const generation = (name: string) => store.generation!([name])
  const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.either(effect))
  let keys = generation('keys')
  const unchanged = (what: string) => t.equal(generation('keys'), keys, what)
  const changed = (what: string) => { t.not(generation('keys'), keys, what); keys = generation('keys') }
  await run(store.get('keys', 'k1'))
  await run(store.find('keys', {}))
  unchanged('reads change nothing')
  await run(store.put('other', { _id: 'x' }))
  unchanged('a write to another collection')
  const both = store.generation!(['keys', 'other'])
  await run(store.put('other', { _id: 'x2' }))
  t.not(store.generation!(['keys', 'other']), both, 'a write to one of several collections moves their generation')
  await run(store.put('keys', { _id: 'k1', revoked: false }))
  changed('a put')
  await run(store.putMany!('keys', [{ _id: 'k2' }]))
  changed('a putMany')
  await run(store.delete('keys', 'k2'))
  changed('a delete')
  await run(store.inBatch(Effect.zipRight(store.put('other', { _id: 'y' }), Effect.fail('stop'))))
  changed('a rolled back batch (its writes were seen inside it, then undone)')
  await run(other.put('keys', { _id: 'k1', revoked: true }))
  changed('another connection\'s commit')
  await run(store.clear('keys'))
  changed('a clear')
})

t.test('SQLite: reads by id look for other commits once per turn, and again after a read from the file or a write by another store of the thread', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-turn-'))
  const store = makeSqliteDocumentStore(join(dir, 'docs.db'))
  const other = makeSqliteDocumentStore(join(dir, 'docs.db'))
  // Another process's connection: its commits are seen only through data_version.
  const outside = new Database(join(dir, 'docs.db'))
  t.teardown(() => { store.db.close(); other.db.close(); outside.close(); rmSync(dir, { recursive: true, force: true }) })
  const n = (id: string) => (Effect.runSync(store.get('c', id)) as { n: number } | null)?.n
  const setOutside = (id: string, value: number) =>
    outside.prepare("update docs set body = ? where collection = 'c' and id = ?").run(JSON.stringify({ _id: id, n: value }), id)
  Effect.runSync(store.putMany!('c', [{ _id: 'a', n: 1 }, { _id: 'b', n: 1 }]))
  t.equal(n('a'), 1)
  Effect.runSync(other.put('c', { _id: 'a', n: 2 }))
  t.equal(n('a'), 2, 'another store of the thread: seen in the same turn')
  setOutside('a', 3)
  setOutside('b', 3)
  t.same(Effect.runSync(store.find('c', { _id: 'b' })), [{ _id: 'b', n: 3 }], 'a query reads the file')
  t.equal(n('a'), 3, 'after a read from the file, no older body is answered')
  setOutside('a', 4)
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(n('a'), 4, 'another process\'s commit: seen in the next turn')
})

t.test('SQLite: a retried append expecting the head its own first try made is a no-op, and the log tail stays whole', async (t) => {
  const { file, remove } = tempFile('events.db')
  const store = makeSqliteEventStore(file)
  t.teardown(() => { store.db.close(); remove() })
  const event = (id: string) => ({ event_id: id, type: 'Tested', data: { id }, org_id: 'o1', occurred_at: '2024-01-01T00:00:00.000Z', metadata: { correlation_id: 'c', causation_id: null, actor: 'test' } })
  const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
  await run(store.readAll(0, 100)) // the tail starts at the (empty) log's end
  const first = await run(store.append('s-1', [event('e1')], 'no_stream'))
  await run(store.append('s-2', [event('e2'), event('e3')], 'no_stream'))
  t.same(await run(store.append('s-1', [event('e1')], 0)), first, 'same answer as the append it repeats')
  await t.rejects(run(store.append('s-1', [event('e4'), event('e2')], 0)), 'a duplicate past the first event fails the append')
  t.same((await run(store.readStream('s-1'))).map((e) => e.event_id), ['e1'], 'nothing appended by the retry or the failed append')
  await run(store.append('s-1', [event('e5')], 0))
  const viaTail = (await run(store.readAll(0, 100))).map((e) => [e.position, e.event_id])
  const fresh = makeSqliteEventStore(file)
  const viaFile = (await run(fresh.readAll(0, 100))).map((e) => [e.position, e.event_id])
  fresh.db.close()
  t.same(viaTail, viaFile, 'the tail holds what the file does')
  t.same(viaFile, [[1, 'e1'], [2, 'e2'], [3, 'e3'], [4, 'e5']], 'consecutive positions')
})

t.test('SQLite: reads by id answered from what the connection wrote or read follow every change of the file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-recent-'))
  const store = makeSqliteDocumentStore(join(dir, 'docs.db'))
  const other = makeSqliteDocumentStore(join(dir, 'docs.db'))
  t.teardown(() => { store.db.close(); other.db.close(); rmSync(dir, { recursive: true, force: true }) })
  const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
  await run(store.put('c', { _id: 'a', n: 1 }))
  t.equal(await run(store.get('c', 'b')), null, 'absent')
  const copy = await run(store.get('c', 'a'))
  t.same(copy, { _id: 'a', n: 1 })
  ;(copy as unknown as { n: number }).n = 99
  t.same(await run(store.get('c', 'a')), { _id: 'a', n: 1 }, 'each read is its own copy')
  await run(other.put('c', { _id: 'a', n: 2 }))
  await run(other.put('c', { _id: 'b', n: 1 }))
  t.same(await run(store.get('c', 'a')), { _id: 'a', n: 2 }, 'another connection\'s write is seen')
  t.same(await run(store.get('c', 'b')), { _id: 'b', n: 1 }, 'another connection\'s new document is seen')
  await run(other.delete('c', 'b'))
  await run(store.inBatch(Effect.gen(function* () {
    t.equal(yield* store.get('c', 'b'), null, 'a batch sees a delete committed before it began')
    yield* store.put('c', { _id: 'a', n: 3 })
    t.same(yield* store.get('c', 'a'), { _id: 'a', n: 3 }, 'a batch reads its own write')
  })))
  t.same(await run(other.get('c', 'a')), { _id: 'a', n: 3 }, 'committed')
  await run(store.clear('c'))
  t.equal(await run(store.get('c', 'a')), null, 'a cleared collection answers nothing')
})

t.test('SQLite: peekNow answers getNow\'s document, one copy while it is unchanged, and follows every change', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-peek-'))
  const store = makeSqliteDocumentStore(join(dir, 'docs.db'))
  const outside = new Database(join(dir, 'docs.db'))
  t.teardown(() => { store.db.close(); outside.close(); rmSync(dir, { recursive: true, force: true }) })
  const peek = (id: string) => store.peekNow!('c', id)
  t.equal(peek('a'), null, 'absent')
  store.putNow!('c', { _id: 'a', n: 1 })
  const first = peek('a')
  t.same(first, store.getNow!('c', 'a'), 'the same document as getNow')
  t.equal(peek('a'), first, 'unchanged: the same copy')
  t.not(store.getNow!('c', 'a'), first, 'getNow still answers a copy of its own')
  store.putNow!('c', { _id: 'a', n: 2 })
  t.same(peek('a'), { _id: 'a', n: 2 }, 'a write of the connection is seen at once')
  store.deleteNow!('c', 'a')
  t.equal(peek('a'), null, 'and a deletion')
  store.putNow!('c', { _id: 'a', n: 3 })
  t.same(peek('a'), { _id: 'a', n: 3 })
  outside.prepare("update docs set body = ? where collection = 'c' and id = 'a'").run(JSON.stringify({ _id: 'a', n: 4 }))
  await new Promise((resolve) => setImmediate(resolve))
  t.same(peek('a'), { _id: 'a', n: 4 }, 'another process\'s commit: seen in the next turn')
})
