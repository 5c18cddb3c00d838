import { Effect } from 'effect'
import type { DocumentStoreService } from '../../ports/document-store.js'
import type { CheckpointStore } from './catch-up.js'

/** Checkpoints kept in the document store, for catch-up subscribers of an event store that has no place for them. */
export const documentCheckpoints = (docs: DocumentStoreService): CheckpointStore => ({
  load: async (name) => ((await Effect.runPromise(docs.get('checkpoints', name)))?.position as number | undefined) ?? 0,
  save: (name, position) => Effect.runPromise(docs.put('checkpoints', { _id: name, position })),
})
