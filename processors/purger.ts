import { Effect } from 'effect'
import { purgeJob, recordBlobDeleted } from '../commands/purge.js'
import type { PurgeReason } from '../domain/job/events.js'
import { coverage, retentionCutoff, type ActiveHold } from '../domain/retention/coverage.js'
import { BlobStore } from '../ports/blob-store.js'
import type { StoreUnavailable } from '../ports/event-store.js'

/** A job with something left to purge, as the purger's work list shows it. */
export interface PurgeCandidate {
  readonly job_id: string
  readonly org_id: string
  readonly created_at: string
  readonly deletion_requested: boolean
  readonly artifact_ids: readonly string[]
  readonly artifacts: readonly { readonly artifact_id: string; readonly blob_key: string; readonly state: 'live' | 'purged' | 'deleted' }[]
}

/** Keyset paging over the request time: items requested at or after `from`, oldest first. */
export interface Page { readonly from: string; readonly limit: number }

/** What a sweep reads (read models, wired by infra): organizations, their retention, their holds, the work list. */
export interface SweepReads<R> {
  readonly orgs: Effect.Effect<readonly { readonly org_id: string; readonly retention_days: number }[], StoreUnavailable, R>
  readonly activeHolds: (orgId: string) => Effect.Effect<readonly ActiveHold[], StoreUnavailable, R>
  /** Finished, not yet purged jobs of the organization requested at or before `cutoff`, oldest first. */
  readonly expired: (orgId: string, cutoff: string, page: Page) => Effect.Effect<readonly PurgeCandidate[], StoreUnavailable, R>
  /** Finished, not yet purged jobs whose deletion was requested. */
  readonly deletionRequested: (page: Page) => Effect.Effect<readonly PurgeCandidate[], StoreUnavailable, R>
  /** Jobs with a tombstoned artifact whose blob is not recorded deleted. */
  readonly blobsPending: (page: Page) => Effect.Effect<readonly PurgeCandidate[], StoreUnavailable, R>
}

export interface SweepOptions {
  readonly now: Date
  /** Jobs purged at most per sweep; the rest waits for the next one. */
  readonly batchSize: number
  readonly dryRun: boolean
  readonly log: (message: string, detail?: unknown) => void
}

export interface SweepCounts {
  readonly jobs_purged: number
  readonly artifacts_purged: number
  readonly blobs_deleted: number
  readonly held_skipped: number
}

const PAGE = 500
const METADATA = (now: Date) => ({ correlation_id: `purge-${now.toISOString()}`, causation_id: null, actor: 'purger' })

/**
 * One bounded sweep of the purger (SPEC 3.7): for each job past its organization's retention or whose deletion was
 * requested, and not under a legal hold, (1) the tombstone events, (2) the blobs deleted, (3) a purge record in the
 * log and the audit trail (ArtifactBlobDeleted). Every step is idempotent on its artifact, so a sweep interrupted
 * anywhere is finished by the next one (tombstoned artifacts whose blob is not recorded deleted come first).
 */
export const sweep = <R>(reads: SweepReads<R>, options: SweepOptions) =>
  Effect.gen(function* () {
    const blobs = yield* BlobStore
    const metadata = METADATA(options.now)
    const counts = { jobs_purged: 0, artifacts_purged: 0, blobs_deleted: 0, held_skipped: 0 }
    const holdsByOrg = new Map<string, readonly ActiveHold[]>()
    const holdsOf = (orgId: string) => Effect.gen(function* () {
      const known = holdsByOrg.get(orgId)
      if (known) return known
      const holds = yield* reads.activeHolds(orgId)
      holdsByOrg.set(orgId, holds)
      return holds
    })

    const deleteBlob = (job: PurgeCandidate, artifact: { readonly artifact_id: string; readonly blob_key: string }) => Effect.gen(function* () {
      yield* blobs.delete(artifact.blob_key)
      yield* recordBlobDeleted({ org_id: job.org_id, job_id: job.job_id, artifact_id: artifact.artifact_id, now: options.now, metadata })
      options.log('purge: artifact blob deleted', { org_id: job.org_id, job_id: job.job_id, artifact_id: artifact.artifact_id })
      counts.blobs_deleted++
    })

    // A crash between a tombstone and its blob's deletion left work behind: finish it first.
    if (!options.dryRun) {
      for (const job of yield* reads.blobsPending({ from: '', limit: options.batchSize })) {
        for (const artifact of job.artifacts.filter((a) => a.state === 'purged')) yield* deleteBlob(job, artifact)
      }
    }

    const seen = new Set<string>()
    /** Purges one candidate unless held; answers false once the sweep's budget is spent. */
    const purge = (job: PurgeCandidate, reason: PurgeReason) => Effect.gen(function* () {
      seen.add(job.job_id)
      const held = coverage(yield* holdsOf(job.org_id), job)
      const live = job.artifacts.filter((a) => a.state === 'live')
      if (held.whole_job || (live.length > 0 && live.every((a) => held.artifacts.has(a.artifact_id)))) {
        counts.held_skipped++
        return true
      }
      if (options.dryRun) {
        counts.artifacts_purged += live.filter((a) => !held.artifacts.has(a.artifact_id)).length
        if (held.artifacts.size === 0) counts.jobs_purged++
        return counts.jobs_purged < options.batchSize
      }
      const handled = yield* purgeJob({ org_id: job.org_id, job_id: job.job_id, reason, held_artifacts: held.artifacts, now: options.now, metadata })
      for (const event of handled.events) {
        if (event._tag === 'JobPurged') {
          counts.jobs_purged++
          options.log('purge: job tombstoned', { org_id: job.org_id, job_id: job.job_id, reason })
        } else if (event._tag === 'ArtifactPurged') {
          counts.artifacts_purged++
          yield* deleteBlob(job, event)
        }
      }
      if (held.artifacts.size > 0) counts.held_skipped++
      return counts.jobs_purged < options.batchSize
    })

    /**
     * Walks a work list page by page (keyset on the request time: purged jobs leave the list while it is walked)
     * until it ends, shows nothing new, or the budget is spent.
     */
    const walk = (list: (page: Page) => Effect.Effect<readonly PurgeCandidate[], StoreUnavailable, R>, reason: PurgeReason) =>
      Effect.gen(function* () {
        for (let from = ''; ;) {
          const page = yield* list({ from, limit: PAGE })
          const fresh = page.filter((job) => !seen.has(job.job_id))
          for (const job of fresh) if (!(yield* purge(job, reason))) return false
          if (page.length < PAGE || fresh.length === 0) return true
          from = page[page.length - 1]!.created_at
        }
      })

    if (yield* walk(reads.deletionRequested, 'deletion_requested')) {
      for (const org of yield* reads.orgs) {
        const cutoff = retentionCutoff(options.now, org.retention_days)
        if (!(yield* walk((page) => reads.expired(org.org_id, cutoff, page), 'retention_expired'))) break
      }
    }
    return counts as SweepCounts
  })
