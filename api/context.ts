import type { Effect } from 'effect'
import type { Allowlist } from '../domain/address-policy.js'
import type { OriginOverrides, RecipeCatalogue } from '../domain/recipe/catalogue.js'
import type { AuditTrail } from '../ports/audit-trail.js'
import type { BlobStore } from '../ports/blob-store.js'
import type { Clock, ClockService } from '../ports/clock.js'
import type { DocumentStore, DocumentStoreService } from '../ports/document-store.js'
import type { EventStore, EventStoreService } from '../ports/event-store.js'
import type { HostResolver } from '../ports/host-resolver.js'
import type { Usage, UsageService } from '../ports/usage.js'
import type { ApiPrincipal } from '../projections/key-queries.js'
import type { RateWindow } from './rate-window.js'

export type ApiServices = EventStore | DocumentStore | BlobStore | Usage | HostResolver | Clock | AuditTrail

export interface ApiServicesNow {
  readonly events: EventStoreService
  readonly docs: DocumentStoreService
  readonly usage: UsageService
  readonly clock: ClockService
}

/** What the HTTP layer needs from the process: a way to run effects, and settings. */
export interface ApiContext {
  readonly run: <A, E>(effect: Effect.Effect<A, E, ApiServices>) => Promise<A>
  /** The process's Clock, for the rules a route applies itself (the per-key rate window) without an effect run. */
  readonly clock: ClockService
  readonly settings: {
    readonly publicBaseUrl: string
    readonly artifactUrlTtlSeconds: number
    /** The longest a result request may wait for its job to end (`?wait=`). */
    readonly resultWaitMaxSeconds: number
    readonly ssrfAllowlist: Allowlist
    /** The recipes this deployment serves and RECIPE_ORIGIN_OVERRIDES; none when absent. */
    readonly recipes?: { readonly catalogue: RecipeCatalogue; readonly overrides: OriginOverrides }
    /** Tiers this deployment cannot run (the light tier without its client), reported by /healthz. */
    readonly unavailableTiers?: readonly string[]
  }
  /** Present when artifacts are served by this API (local-folder blob store): checks a signed download URL. */
  readonly verifyDownload?: (key: string, expires: number, name: string, sig: string) => { ok: true } | { ok: false; reason: string }
  /**
   * The principal of an API key whose records are remembered and unchanged, found without running an effect; undefined
   * when they must be read (then `run` authenticates). Absent: every request authenticates through `run`.
   */
  readonly rememberedPrincipal?: (secret: string) => ApiPrincipal | undefined
  /**
   * The process's stores and services, for routes whose commands and queries can answer without an effect run (their
   * `...Now` forms, where the stores answer synchronously); absent, every route runs through `run`.
   */
  readonly services?: ApiServicesNow
  /** Checks the signed token of a change e-mail's unsubscribe link; without it no link is valid. */
  readonly verifyUnsubscribe?: (monitorId: string, recipient: string, token: string) => boolean
}

/** Per-process guards the routes share. */
export interface ApiGuards {
  readonly rateWindow: RateWindow
}

export type RouteContext = ApiContext & ApiGuards
