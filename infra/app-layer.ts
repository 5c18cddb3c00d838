import { join } from 'node:path'
import { Layer, RuntimeFlags } from 'effect'
import { DOWNLOAD_PATH } from '../api/downloads.js'
import { SecretBox } from '../domain/secret-box.js'
import { EventLog, StoreLog } from '../ports/event-log.js'
import { Clock, type ClockService } from '../ports/clock.js'
import { HostResolver, type HostResolverService } from '../ports/host-resolver.js'
import { AzureBlobStoreLive } from './azure/blob-store.js'
import { systemClock } from './clock/system.js'
import { LocalBlobStoreLive } from './blob/local-folder.js'
import type { Config } from './config.js'
import { EventStoreDbLive } from './eventstoredb/event-store.js'
import { PostgresEventStoreLive } from './postgres/event-store.js'
import { systemHostResolver } from './host-resolver.js'
import { KafkaClusterLive } from './kafka/client.js'
import { KafkaEventLogLive } from './kafka/event-log.js'
import { MetricsLive } from './metrics/layer.js'
import { DocumentCheckpointedStoreLogLive } from './log/document-checkpoints.js'
import { MailLive } from './mail/index.js'
import { MongoDocumentStoreLive } from './mongo/document-store.js'
import { AuditTrailOfReadModelLive, ReadModelsLive } from './read-models.js'
import { SealingEventStore } from './sealing-event-store.js'
import { SqliteDocumentStoreLive } from './sqlite/document-store.js'
import { SqliteEventStoreLive } from './sqlite/layer.js'
import { SignallingEventStore } from './stream-appends.js'
import { UsageFromCounters } from './usage/layer.js'

type LogFn = (message: string, detail?: unknown) => void

export interface AppLayerOptions {
  /** Name resolution for submission-time target checks; the system resolver unless a test gives fixed answers. */
  readonly hostResolver?: HostResolverService
  /** The time every time-based behaviour reads; the system clock unless a test or bench drives a manual one. */
  readonly clock?: ClockService
  /** Info lines of the adapters (a mail saved without SMTP). */
  readonly notice?: LogFn
}

/**
 * Every port of the process, one adapter each, chosen from configuration (Config.adapters). Built once per process
 * into one ManagedRuntime; releasing it closes everything in the reverse order of opening (logs, then stores).
 * Besides the ports it provides the Kafka cluster settings (scale-out log) and, with the local-folder blob store,
 * the DownloadVerifier the API's download route needs.
 */
export const appLayer = (config: Config, log: LogFn, options: AppLayerOptions = {}) => {
  const settings = config.adapters
  const catchUp = { log, pollIntervalMs: config.catchUpPollMs }

  const documents = settings.documents.kind === 'mongodb'
    ? MongoDocumentStoreLive({ url: settings.documents.url, database: settings.documents.database })
    : SqliteDocumentStoreLive(join(config.dataDir, 'readmodels.db'), log)

  // The event store with its own log: checkpoints in the SQLite file, or in the document store for EventStoreDB and
  // PostgreSQL. SQLite serves the audit trail from its log; otherwise it is a read model (infra/read-models.ts).
  const eventStore = settings.eventStore.kind === 'sqlite'
    ? SqliteEventStoreLive(join(config.dataDir, 'events.db'), catchUp, config.audit)
    : Layer.mergeAll(DocumentCheckpointedStoreLogLive(catchUp), AuditTrailOfReadModelLive).pipe(Layer.provideMerge(
      settings.eventStore.kind === 'postgres' ? PostgresEventStoreLive({ url: settings.eventStore.url }) : EventStoreDbLive(settings.eventStore.url)))

  const clockService = options.clock ?? systemClock
  // Signed URLs expire by the Clock, so a test on a manual clock can see one expire.
  const blobs = settings.blobs.kind === 'local'
    ? LocalBlobStoreLive({
      root: join(config.dataDir, 'artifacts'), downloadBase: `${config.publicBaseUrl}${DOWNLOAD_PATH}`, signingSecret: config.signingSecret,
      now: () => clockService.now().getTime(), log,
    })
    : AzureBlobStoreLive({ connectionString: settings.blobs.connectionString, container: settings.blobs.container })

  const eventLog = settings.log.kind === 'kafka'
    ? KafkaEventLogLive(log).pipe(Layer.provideMerge(KafkaClusterLive({
      clientId: `scrapeworks-${config.workerId}`, brokers: settings.log.brokers, topicPrefix: settings.log.topicPrefix,
      partitions: settings.log.partitions, groupPrefix: settings.log.groupPrefix, sessionTimeoutMs: settings.log.sessionTimeoutMs,
    })))
    : Layer.effect(EventLog, StoreLog)

  const mail = MailLive({ dataDir: config.dataDir, smtpUrl: config.smtpUrl, mailFrom: config.mailFrom, sharedOutbox: settings.documents.kind === 'mongodb', ...(options.notice ? { notice: options.notice } : {}) })

  const hostResolver = Layer.succeed(HostResolver, options.hostResolver ?? systemHostResolver)
  const clock = Layer.succeed(Clock, clockService)

  // One Usage per process: its per-organization lock and reservations make this process's admissions see each other.
  const ports = Layer.mergeAll(eventLog, blobs, mail, UsageFromCounters, hostResolver, clock, ReadModelsLive(settings))
    .pipe(Layer.provideMerge(eventStore), Layer.provideMerge(documents))
  // Every append of the process goes through the sealing store; the store's own log reads the raw one.
  const sealed = SealingEventStore(new SecretBox(config.signingSecret)).pipe(Layer.provideMerge(ports))
  // Each append then signals its stream, so requests waiting on a stream (POST /scrapes) wake at once.
  const signalling = SignallingEventStore.pipe(Layer.provideMerge(sealed))
  // The metrics registry; its decorated logs (reporting each subscriber's checkpoint) replace the plain ones.
  // Effect's own fiber metrics are off: nothing reads them, and every fiber start and end would update them.
  return MetricsLive.pipe(Layer.provideMerge(signalling), Layer.provideMerge(RuntimeFlags.disableRuntimeMetrics))
}
