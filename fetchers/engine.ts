import type { JobSpec, JobType } from '../domain/job/spec.js'

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
  readonly spec: JobSpec
  /** Aborted on shutdown: the engine stops and the job is picked up again after restart. */
  readonly signal: AbortSignal
}

/** A fetch engine for one tier. Every connection it opens goes through the egress gateway. */
export interface Engine {
  readonly tier: JobType
  readonly run: (request: EngineRequest) => Promise<EngineOutcome>
  /** Browser tiers: processes open in the pool and recycled so far (reported as metrics). */
  readonly browsers?: () => { readonly open: number; readonly recycled: number }
  readonly close: () => Promise<void>
}

export const failure = (failure_reason: string, message: string, extra: { manifest?: Record<string, unknown>; artifacts?: readonly EngineArtifact[] } = {}): EngineOutcome =>
  ({ ok: false, failure_reason, message, ...extra })
