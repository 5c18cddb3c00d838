import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Effect } from 'effect'
import t from 'tap'
import { sqliteCatchUpLog } from '../../infra/sqlite/checkpoints.js'
import { makeSqliteDocumentStore } from '../../infra/sqlite/document-store.js'
import { makeSqliteEventStore } from '../../infra/sqlite/event-store.js'
import { documentStoreContract } from './document-store.contract.js'
import { eventLogContract } from './event-log.contract.js'
import { eventStoreContract } from './event-store.contract.js'

/** A fresh temp folder per fixture, removed by its cleanup. */
const tempFile = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-contract-'))
  return { file: join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) }
}

eventStoreContract(t, 'SQLite', async () => {
  const { file, remove } = tempFile('events.db')
  const store = makeSqliteEventStore(file)
  return { store, cleanup: async () => { await Effect.runPromise(store.close()); remove() } }
})

documentStoreContract(t, 'SQLite', async () => {
  const { file, remove } = tempFile('docs.db')
  const store = makeSqliteDocumentStore(file)
  return { store, cleanup: async () => { await Effect.runPromise(store.close()); remove() } }
})

eventLogContract(t, 'SQLite catch-up', async () => {
  const { file, remove } = tempFile('events.db')
  const store = makeSqliteEventStore(file)
  const log = sqliteCatchUpLog(store, { pollIntervalMs: 20 })
  return { store, log, cleanup: async () => { await Effect.runPromise(store.close()); remove() } }
})
