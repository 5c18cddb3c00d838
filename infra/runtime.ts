import { Cause, Effect, Exit, Layer, ManagedRuntime, Option } from 'effect'
import { BlobStore, type BlobStoreService } from '../ports/blob-store.js'
import { DocumentStore, type DocumentStoreService } from '../ports/document-store.js'
import { EventLog, type EventLogService } from '../ports/event-log.js'
import { EventStore, type EventStoreService } from '../ports/event-store.js'
import { HostResolver, type HostResolverService } from '../ports/host-resolver.js'
import { Usage } from '../ports/usage.js'
import { systemHostResolver } from './host-resolver.js'
import { UsageFromCounters } from './usage/layer.js'

export interface Adapters {
  readonly eventStore: EventStoreService
  readonly eventLog: EventLogService
  readonly documents: DocumentStoreService
  readonly blobs: BlobStoreService
  /** Present on the local-folder blob store: verifies URLs served by the API's download route. */
  readonly verifyDownload?: (key: string, expires: number, name: string, sig: string) => { ok: true } | { ok: false; reason: string }
  /** Name resolution for submission-time target checks; the system resolver unless a test gives fixed answers. */
  readonly hostResolver?: HostResolverService
  readonly close: () => Promise<void>
}

export type Services = EventStore | EventLog | DocumentStore | BlobStore | Usage | HostResolver

export const makeRuntime = (adapters: Adapters) => {
  const documents = Layer.succeed(DocumentStore, adapters.documents)
  const layer = Layer.mergeAll(
    Layer.succeed(EventStore, adapters.eventStore),
    Layer.succeed(EventLog, adapters.eventLog),
    documents,
    Layer.succeed(BlobStore, adapters.blobs),
    // One per process: its per-organization lock and reservations are what makes this process's admissions see each other.
    Layer.provide(UsageFromCounters, documents),
    Layer.succeed(HostResolver, adapters.hostResolver ?? systemHostResolver),
  )
  const runtime = ManagedRuntime.make(layer)
  /** Runs an effect; a typed failure rejects with the error itself (so the API maps it by tag), a defect with its cause. */
  const run = async <A, E>(effect: Effect.Effect<A, E, Services>): Promise<A> => {
    const exit = await runtime.runPromiseExit(effect)
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    throw Option.isSome(failure) ? failure.value : Cause.squash(exit.cause)
  }
  return { runtime, run }
}
