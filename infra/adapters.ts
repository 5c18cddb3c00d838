import { join } from 'node:path'
import { Effect } from 'effect'
import { Kafka, logLevel } from 'kafkajs'
import { DOWNLOAD_PATH } from '../api/downloads.js'
import { makeAzureBlobStore } from './azure/blob-store.js'
import { makeLocalBlobStore } from './blob/local-folder.js'
import type { Config } from './config.js'
import { makeEventStoreDbStore } from './eventstoredb/event-store.js'
import { makeKafkaEventLog } from './kafka/event-log.js'
import { makeCatchUpLog } from './log/catch-up.js'
import { documentCheckpoints } from './log/document-checkpoints.js'
import { makeMongoDocumentStore } from './mongo/document-store.js'
import type { EventLogService } from '../ports/event-log.js'
import type { EventStoreService } from '../ports/event-store.js'
import type { Adapters } from './runtime.js'
import { sqliteCatchUpLog } from './sqlite/checkpoints.js'
import { makeSqliteDocumentStore } from './sqlite/document-store.js'
import { makeSqliteEventStore } from './sqlite/event-store.js'

export interface ProcessAdapters extends Adapters {
  /** The event store's own ordered log: what the relay publishes (scale-out), or the fan-out itself (embedded). */
  readonly storeLog: EventLogService
  readonly kafka?: { readonly client: Kafka; readonly prefix: string; readonly partitions: number }
}

/** Chooses one adapter per port from configuration, once, at start-up. */
export const makeAdapters = async (config: Config, log: (message: string, detail?: unknown) => void): Promise<ProcessAdapters> => {
  const settings = config.adapters
  const closers: (() => Promise<void>)[] = []

  const sqliteStore = settings.eventStore.kind === 'sqlite' ? makeSqliteEventStore(join(config.dataDir, 'events.db')) : undefined
  const eventStore: EventStoreService = sqliteStore ?? makeEventStoreDbStore((settings.eventStore as { url: string }).url)
  closers.push(() => Effect.runPromise(eventStore.close()))

  const documents = settings.documents.kind === 'mongodb'
    ? await makeMongoDocumentStore({ url: settings.documents.url, database: settings.documents.database })
    : makeSqliteDocumentStore(join(config.dataDir, 'readmodels.db'))
  closers.unshift(() => Effect.runPromise(documents.close()))

  const local = settings.blobs.kind === 'local'
    ? makeLocalBlobStore({ root: join(config.dataDir, 'artifacts'), downloadBase: `${config.publicBaseUrl}${DOWNLOAD_PATH}`, signingSecret: config.signingSecret })
    : undefined
  const blobs = local ?? await makeAzureBlobStore(settings.blobs as { connectionString: string; container: string })

  const catchUp = { log, pollIntervalMs: config.catchUpPollMs }
  const storeLog = sqliteStore ? sqliteCatchUpLog(sqliteStore, catchUp) : makeCatchUpLog(eventStore, documentCheckpoints(documents), catchUp)
  const kafkaSettings = settings.log.kind === 'kafka' ? settings.log : undefined
  const kafka = kafkaSettings
    ? new Kafka({ clientId: `scrapeworks-${config.workerId}`, brokers: [...kafkaSettings.brokers], logLevel: logLevel.ERROR })
    : undefined
  const eventLog = kafka && kafkaSettings
    ? makeKafkaEventLog({ kafka, topics: { prefix: kafkaSettings.topicPrefix, partitions: kafkaSettings.partitions }, groupPrefix: kafkaSettings.groupPrefix, sessionTimeoutMs: kafkaSettings.sessionTimeoutMs, log })
    : storeLog

  return {
    eventStore, eventLog, storeLog, documents, blobs,
    ...(local ? { verifyDownload: local.verify } : {}),
    ...(kafka && kafkaSettings ? { kafka: { client: kafka, prefix: kafkaSettings.topicPrefix, partitions: kafkaSettings.partitions } } : {}),
    close: async () => { for (const close of closers) await close() },
  }
}
