import t from 'tap'
import { makeStagedTokensDocuments } from '../../infra/mail/staged-tokens-documents.js'
import { makeMemoryBlobStore } from '../../infra/memory/blob-store.js'
import { memoryCatchUpLog } from '../../infra/memory/catch-up-log.js'
import { makeMemoryDocumentStore } from '../../infra/memory/document-store.js'
import { makeMemoryEventStore } from '../../infra/memory/event-store.js'
import { blobStoreContract } from './blob-store.contract.js'
import { documentStoreContract } from './document-store.contract.js'
import { eventLogContract } from './event-log.contract.js'
import { eventStoreContract } from './event-store.contract.js'
import { mailOutboxContract } from './mail-outbox.contract.js'

const nothingToClean = async () => {}

eventStoreContract(t, 'in memory', async () => ({ store: makeMemoryEventStore(), cleanup: nothingToClean }))

documentStoreContract(t, 'in memory', async () => ({ store: makeMemoryDocumentStore(), cleanup: nothingToClean }))

blobStoreContract(t, 'in memory', async () => ({ store: makeMemoryBlobStore(), cleanup: nothingToClean }))

eventLogContract(t, 'in-memory catch-up, checkpoints in the in-memory document store', async () => {
  const store = makeMemoryEventStore()
  const log = memoryCatchUpLog(store, makeMemoryDocumentStore(), { pollIntervalMs: 20 })
  return { store, log, cleanup: nothingToClean }
})

mailOutboxContract(t, 'staged tokens in the in-memory document store', async () => {
  return { outbox: makeStagedTokensDocuments(makeMemoryDocumentStore()), cleanup: nothingToClean }
})
