import { Effect, Layer } from 'effect'
import { DocumentStore, type DocumentStoreService } from '../../ports/document-store.js'
import { StoreLog } from '../../ports/event-log.js'
import { EventStore } from '../../ports/event-store.js'
import { makeCatchUpLog, type CatchUpOptions, type CheckpointStore } from './catch-up.js'
import { scopedEventLog } from './scoped-log.js'

const CHECKPOINTS = 'checkpoints'
const checkpointDocs = (positions: ReadonlyMap<string, number>) => [...positions].map(([name, position]) => ({ _id: name, position }))

/** Checkpoints kept in the document store, for catch-up subscribers of an event store that has no place for them. */
export const documentCheckpoints = (docs: DocumentStoreService): CheckpointStore => ({
  load: (name) => Effect.map(docs.get(CHECKPOINTS, name), (doc) => (doc?.position as number | undefined) ?? 0),
  save: (name, position) => docs.put(CHECKPOINTS, { _id: name, position }),
  saveAll: (positions) => {
    const checkpoints = checkpointDocs(positions)
    return docs.putMany ? docs.putMany(CHECKPOINTS, checkpoints) : Effect.forEach(checkpoints, (doc) => docs.put(CHECKPOINTS, doc), { discard: true })
  },
})

/** `saveAll` at once, on a store with synchronous entries. */
export const saveCheckpointsNow = (docs: Required<Pick<DocumentStoreService, 'putNow'>>, positions: ReadonlyMap<string, number>) => {
  for (const doc of checkpointDocs(positions)) docs.putNow(CHECKPOINTS, doc)
}

/** The store's own log for an event store without room for checkpoints (EventStoreDB): catch-up over EventStore. */
export const DocumentCheckpointedStoreLogLive = (options: CatchUpOptions) => Layer.scoped(StoreLog, Effect.gen(function* () {
  const store = yield* EventStore
  const docs = yield* DocumentStore
  return yield* scopedEventLog(makeCatchUpLog(store, documentCheckpoints(docs), options))
}))
