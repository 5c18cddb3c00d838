import type { HoldScope } from './events.js'

export interface ActiveHold {
  readonly scope_type: HoldScope
  readonly scope_ref: string
}

export interface Coverage {
  /** An organization or job hold: nothing of the job may be purged. */
  readonly whole_job: boolean
  /** Artifacts of the job under an artifact hold: they, and the job record that describes them, stay. */
  readonly artifacts: ReadonlySet<string>
}

/** What the organization's active holds keep of one job. Several holds on one scope count as one. */
export const coverage = (holds: readonly ActiveHold[], job: { readonly job_id: string; readonly artifact_ids: readonly string[] }): Coverage => ({
  whole_job: holds.some((h) => h.scope_type === 'org' || (h.scope_type === 'job' && h.scope_ref === job.job_id)),
  artifacts: new Set(job.artifact_ids.filter((id) => holds.some((h) => h.scope_type === 'artifact' && h.scope_ref === id))),
})

export const isHeld = (c: Coverage): boolean => c.whole_job || c.artifacts.size > 0

const DAY_MS = 86_400_000

/** A job expires `retention_days` after it was requested; the newest request time that is expired at `now`. */
export const retentionCutoff = (now: Date, retentionDays: number): string => new Date(now.getTime() - retentionDays * DAY_MS).toISOString()
