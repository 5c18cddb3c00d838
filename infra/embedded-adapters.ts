import { join } from 'node:path'
import { Effect } from 'effect'
import { DOWNLOAD_PATH } from '../api/downloads.js'
import type { Config } from './config.js'
import { makeLocalBlobStore } from './blob/local-folder.js'
import { sqliteCatchUpLog } from './sqlite/checkpoints.js'
import type { Adapters } from './runtime.js'
import { makeSqliteDocumentStore } from './sqlite/document-store.js'
import { makeSqliteEventStore } from './sqlite/event-store.js'

/** The embedded profile: SQLite files and a local folder under DATA_DIR, nothing to install. */
export const makeEmbeddedAdapters = (config: Config, log: (message: string, detail?: unknown) => void): Adapters => {
  const eventStore = makeSqliteEventStore(join(config.dataDir, 'events.db'))
  const documents = makeSqliteDocumentStore(join(config.dataDir, 'readmodels.db'))
  const blobs = makeLocalBlobStore({
    root: join(config.dataDir, 'artifacts'),
    downloadBase: `${config.publicBaseUrl}${DOWNLOAD_PATH}`,
    signingSecret: config.signingSecret,
  })
  return {
    eventStore,
    eventLog: sqliteCatchUpLog(eventStore, { log }),
    documents,
    blobs,
    verifyDownload: blobs.verify,
    close: async () => {
      await Effect.runPromise(documents.close())
      await Effect.runPromise(eventStore.close())
    },
  }
}
