import type { DocumentStoreService } from '../../ports/document-store.js'
import { makeCatchUpLog, type CatchUpOptions } from '../log/catch-up.js'
import { documentCheckpoints } from '../log/document-checkpoints.js'
import type { MemoryEventStore } from './event-store.js'

/** The catch-up log over the in-memory store, checkpoints in a document store, woken by the store's own appends. */
export const memoryCatchUpLog = (store: MemoryEventStore, checkpoints: DocumentStoreService, options: Omit<CatchUpOptions, 'appended'> = {}) =>
  makeCatchUpLog(store, documentCheckpoints(checkpoints), { ...options, appended: store.appended })
