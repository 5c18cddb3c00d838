import type { JobSpec, JobType } from '../domain/job/spec.js'
import type { ScriptedPage } from './browser/scripted-page.js'

/** One output of a job before it is stored: the processor writes the bytes to the blob store. */
export interface EngineArtifact {
  readonly artifact_type: string
  readonly content_type: string
  readonly bytes: Uint8Array
}

export type EngineOutcome =
  | { readonly ok: true; readonly manifest: Record<string, unknown>; readonly artifacts: readonly EngineArtifact[] }
  | {
    readonly ok: false; readonly failure_reason: string; readonly message: string
    readonly manifest?: Record<string, unknown>; readonly artifacts?: readonly EngineArtifact[]
  }

export interface EngineRequest {
  readonly job_id: string
  /** The job's organization: the light tier shares connections among one organization's jobs only. */
  readonly org_id: string
  readonly spec: JobSpec
  /** Aborted on shutdown: the engine stops and the job is picked up again after restart. */
  readonly signal: AbortSignal
}

/** How a scripted browser session ended: the script's answer, or the failure that ended the session (timeout, crash, ...). */
export type BrowseOutcome<T> =
  | { readonly ok: true; readonly value: T; readonly manifest: Record<string, unknown> }
  | Extract<EngineOutcome, { ok: false }>

/** A fetch engine for one tier. Every connection it opens goes through the egress gateway. */
export interface Engine {
  readonly tier: JobType
  readonly run: (request: EngineRequest) => Promise<EngineOutcome>
  /**
   * Browser tiers: one session whose page the script drives (recipe browser steps), on the job's settings, through
   * the egress gateway, within timeout_ms.
   */
  readonly browse?: <T>(request: EngineRequest, script: (page: ScriptedPage) => Promise<T>) => Promise<BrowseOutcome<T>>
  /** Browser tiers: processes open in the pool and recycled so far (reported as metrics). */
  readonly browsers?: () => { readonly open: number; readonly recycled: number }
  readonly close: () => Promise<void>
}

export const failure = (failure_reason: string, message: string, extra: { manifest?: Record<string, unknown>; artifacts?: readonly EngineArtifact[] } = {}): EngineOutcome =>
  ({ ok: false, failure_reason, message, ...extra })
