import { Effect, type Context, type Layer } from 'effect'
import t from 'tap'
import { makeStagedTokensDocuments } from '../../infra/mail/staged-tokens-documents.js'
import { MemoryBlobStoreLayer } from '../../infra/memory/blob-store.js'
import { memoryCatchUpLog } from '../../infra/memory/catch-up-log.js'
import { makeMemoryDocumentStore, MemoryDocumentStoreLayer } from '../../infra/memory/document-store.js'
import { makeMemoryEventStore, MemoryEventStoreLayer } from '../../infra/memory/event-store.js'
import { BlobStore } from '../../ports/blob-store.js'
import { DocumentStore } from '../../ports/document-store.js'
import { EventStore } from '../../ports/event-store.js'
import { auditTrailContract, recordIntoReadModel } from './audit-trail.contract.js'
import { blobStoreContract } from './blob-store.contract.js'
import { documentStoreContract, throughNowEntries as documentsThroughNowEntries } from './document-store.contract.js'
import { eventLogContract } from './event-log.contract.js'
import { eventStoreContract, throughNowEntries as eventsThroughNowEntries } from './event-store.contract.js'
import { mailOutboxContract } from './mail-outbox.contract.js'

const nothingToClean = async () => {}

/** The service a Layer builds, as an application layer would get it. */
const built = <I, S>(tag: Context.Tag<I, S>, layer: Layer.Layer<I>) => Effect.runPromise(Effect.provide(tag, layer))

eventStoreContract(t, 'in memory', async () => ({ store: await built(EventStore, MemoryEventStoreLayer), cleanup: nothingToClean }))

documentStoreContract(t, 'in memory', async () => ({ store: await built(DocumentStore, MemoryDocumentStoreLayer), cleanup: nothingToClean }))

eventStoreContract(t, 'in memory, through its synchronous entry points', async () => ({ store: eventsThroughNowEntries(makeMemoryEventStore()), cleanup: nothingToClean }))

documentStoreContract(t, 'in memory, through its synchronous entry points', async () => ({ store: documentsThroughNowEntries(makeMemoryDocumentStore()), cleanup: nothingToClean }))

auditTrailContract(t, 'read model in the in-memory document store', async () => ({ record: recordIntoReadModel(makeMemoryDocumentStore()), cleanup: nothingToClean }))

blobStoreContract(t, 'in memory', async () => ({ store: await built(BlobStore, MemoryBlobStoreLayer), cleanup: nothingToClean }))

eventLogContract(t, 'in-memory catch-up, checkpoints in the in-memory document store', async () => {
  const store = makeMemoryEventStore()
  const log = memoryCatchUpLog(store, makeMemoryDocumentStore(), { pollIntervalMs: 20 })
  return { store, log, cleanup: nothingToClean }
})

mailOutboxContract(t, 'staged tokens in the in-memory document store', async () =>
  ({ outbox: makeStagedTokensDocuments(makeMemoryDocumentStore()), cleanup: nothingToClean }))
