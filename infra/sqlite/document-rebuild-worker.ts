/**
 * The worker thread of a SQLite rebuild (document-rebuild.ts): its own connection to the read-model file holds one
 * transaction from the clearing of the rebuilt collections to the commit, and answers each request in order. After a
 * failed begin or write it refuses everything but the rollback; after the commit or the rollback it closes the file
 * and ends.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { Effect } from 'effect'
import { makeSqliteDocumentStore } from './document-store.js'
import type { RebuildReply, RebuildRequest } from './document-rebuild.js'

const port = parentPort!
const store = makeSqliteDocumentStore((workerData as { file: string }).file)
let failed: string | null = null

const answer = (request: RebuildRequest): unknown => {
  // After a failed begin nothing else may run (it would write outside the transaction), nor commit after a failed write.
  if (failed !== null && request.op !== 'rollback') throw new Error(`the rebuild failed earlier: ${failed}`)
  switch (request.op) {
    case 'begin':
      // Immediate: the write lock is taken now, so no other writer gets in between the clearing and the commit.
      store.db.exec('begin immediate')
      for (const collection of request.collections) Effect.runSync(store.clear(collection))
      return undefined
    case 'put':
      return Effect.runSync(store.putMany!(request.collection, request.docs))
    case 'delete':
      for (const id of request.ids) Effect.runSync(store.delete(request.collection, id))
      return undefined
    case 'get':
      return Effect.runSync(store.get(request.collection, request.id))
    case 'find':
      return Effect.runSync(store.find(request.collection, request.filter))
    case 'commit':
      store.db.exec('commit')
      return undefined
    case 'rollback':
      if (store.db.inTransaction) store.db.exec('rollback')
      return undefined
  }
}

port.on('message', (request: RebuildRequest & { readonly seq: number }) => {
  let reply: RebuildReply
  try {
    reply = { seq: request.seq, ok: true, value: answer(request) }
  } catch (error) {
    if (request.op === 'put' || request.op === 'delete' || request.op === 'begin') failed ??= String(error)
    reply = { seq: request.seq, ok: false, error: String(error) }
  }
  port.postMessage(reply)
  if (request.op === 'commit' || request.op === 'rollback') {
    if (store.db.inTransaction) store.db.exec('rollback')
    store.db.close()
    port.close()
  }
})
