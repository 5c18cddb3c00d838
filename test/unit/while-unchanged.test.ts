import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Effect } from 'effect'
import t from 'tap'
import { makeMemoryDocumentStore } from '../../infra/memory/document-store.js'
import { makeSqliteDocumentStore } from '../../infra/sqlite/document-store.js'
import { DocumentStore, type DocumentStoreService } from '../../ports/document-store.js'
import { rememberedWhileUnchanged } from '../../projections/while-unchanged.js'

/** A remembered reading of collection `c` that counts the reads it makes. */
const countingReading = (keep?: (answer: unknown) => boolean) => {
  let reads = 0
  const read = rememberedWhileUnchanged(['c'], (id) => Effect.flatMap(DocumentStore, (docs) => {
    reads += 1
    return docs.get('c', id)
  }), keep)
  return { read, reads: () => reads }
}
const on = (docs: DocumentStoreService) => <A, E>(effect: Effect.Effect<A, E, DocumentStore>) =>
  Effect.runPromise(Effect.provideService(effect, DocumentStore, docs))

t.test('a reading is kept until its collection changes, and read again then', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-while-unchanged-'))
  const docs = makeSqliteDocumentStore(join(dir, 'docs.db'))
  const other = makeSqliteDocumentStore(join(dir, 'docs.db'))
  t.teardown(() => { docs.db.close(); other.db.close(); rmSync(dir, { recursive: true, force: true }) })
  const run = on(docs)
  const { read, reads } = countingReading()
  await run(docs.put('c', { _id: 'a', v: 1 }))
  t.same(await run(read('a')), { _id: 'a', v: 1 })
  t.same(await run(read('a')), { _id: 'a', v: 1 })
  t.equal(reads(), 1, 'read once while unchanged')
  await run(docs.put('d', { _id: 'x' }))
  await run(read('a'))
  t.equal(reads(), 1, 'a write to another collection keeps it')
  await run(docs.put('c', { _id: 'a', v: 2 }))
  t.same(await run(read('a')), { _id: 'a', v: 2 }, 'a write to the collection is seen at once')
  await run(other.put('c', { _id: 'a', v: 3 }))
  t.same(await run(read('a')), { _id: 'a', v: 3 }, 'so is another connection\'s')
  t.equal(reads(), 3)
  t.same(read.peek(docs, 'a'), { _id: 'a', v: 3 }, 'peek answers the kept reading without reading')
  t.equal(read.peek(docs, 'b'), undefined, 'and nothing for a key never read')
  await run(docs.put('c', { _id: 'a', v: 4 }))
  t.equal(read.peek(docs, 'a'), undefined, 'nor once the collection changed')
  t.equal(reads(), 3)
})

t.test('answers `keep` refuses are read every time; a store without generations is read every time', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-while-unchanged-'))
  const docs = makeSqliteDocumentStore(join(dir, 'docs.db'))
  t.teardown(() => { docs.db.close(); rmSync(dir, { recursive: true, force: true }) })
  const missing = countingReading((answer) => answer !== null)
  await on(docs)(missing.read('nobody'))
  await on(docs)(missing.read('nobody'))
  t.equal(missing.reads(), 2, 'a missing document is not remembered')
  const memory = makeMemoryDocumentStore()
  const plain = countingReading()
  await on(memory)(plain.read('a'))
  await on(memory)(plain.read('a'))
  t.equal(plain.reads(), 2)
})
