import { Cause, Effect, Exit, Layer, ManagedRuntime, Option } from 'effect'
import { BlobStore, type BlobStoreService } from '../ports/blob-store.js'
import { DocumentStore, type DocumentStoreService } from '../ports/document-store.js'
import { EventLog, type EventLogService } from '../ports/event-log.js'
import { EventStore, type EventStoreService } from '../ports/event-store.js'

export interface Adapters {
  readonly eventStore: EventStoreService
  readonly eventLog: EventLogService
  readonly documents: DocumentStoreService
  readonly blobs: BlobStoreService
  /** Present on the local-folder blob store: verifies URLs served by the API's download route. */
  readonly verifyDownload?: (key: string, expires: number, name: string, sig: string) => { ok: true } | { ok: false; reason: string }
  readonly close: () => Promise<void>
}

export type Services = EventStore | EventLog | DocumentStore | BlobStore

export const makeRuntime = (adapters: Adapters) => {
  const layer = Layer.mergeAll(
    Layer.succeed(EventStore, adapters.eventStore),
    Layer.succeed(EventLog, adapters.eventLog),
    Layer.succeed(DocumentStore, adapters.documents),
    Layer.succeed(BlobStore, adapters.blobs),
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
