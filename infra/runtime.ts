import { Cause, Effect, Exit, Option, Runtime } from 'effect'
import type { AuditTrail } from '../ports/audit-trail.js'
import type { BlobStore } from '../ports/blob-store.js'
import type { Clock } from '../ports/clock.js'
import type { DocumentStore } from '../ports/document-store.js'
import type { EventLog, StoreLog } from '../ports/event-log.js'
import type { EventStore } from '../ports/event-store.js'
import type { HostResolver } from '../ports/host-resolver.js'
import type { Mailer, MailOutbox } from '../ports/mail.js'
import type { Usage } from '../ports/usage.js'
import type { ReadModels } from './read-models.js'

/** Every port the application layer provides: what commands, projections and processors may require. */
export type AppServices = EventStore | EventLog | StoreLog | DocumentStore | BlobStore | MailOutbox | Mailer | Usage | HostResolver | Clock
  | AuditTrail | ReadModels

export type Run<R = AppServices> = <A, E>(effect: Effect.Effect<A, E, R>) => Promise<A>

/**
 * Runs effects from promise-based code (fastify routes, subscription handlers): a typed failure rejects with the
 * error itself (so the API maps it by tag), a defect with its cause.
 */
export const promiseRunner = <R>(runExit: <A, E>(effect: Effect.Effect<A, E, R>) => Promise<Exit.Exit<A, unknown>>): Run<R> =>
  async (effect) => {
    const exit = await runExit(effect)
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    throw Option.isSome(failure) ? failure.value : Cause.squash(exit.cause)
  }

/** A runner over the services of the effect that asks for it (a role, inside the process's runtime). */
export const currentRunner: Effect.Effect<Run, never, AppServices> = Effect.map(Effect.runtime<AppServices>(), (runtime) => promiseRunner(Runtime.runPromiseExit(runtime)))
