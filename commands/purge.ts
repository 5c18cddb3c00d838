import { Effect } from 'effect'
import type { PurgeReason } from '../domain/job/events.js'
import { STREAMS } from '../domain/streams.js'
import { jobDecider } from '../domain/job/decider.js'
import { Clock } from '../ports/clock.js'
import type { EventMetadata } from '../ports/event-store.js'
import { handle } from './handle.js'

/** A user's deletion request; the caller has checked that no legal hold covers the job. */
export const requestJobDeletion = (input: { readonly org_id: string; readonly job_id: string; readonly metadata: EventMetadata }) =>
  Effect.flatMap(Clock, (clock) => handle(jobDecider, STREAMS.job.stream(input.job_id), {
    _tag: 'RequestJobDeletion', job_id: input.job_id, now: clock.now().toISOString(),
  }, { org_id: input.org_id, metadata: input.metadata }))

/** Tombstones a job's unheld artifacts, and the job when none is held (SPEC 3.7 step 1). Appends nothing twice. */
export const purgeJob = (input: {
  readonly org_id: string; readonly job_id: string; readonly reason: PurgeReason; readonly held_artifacts: ReadonlySet<string>
  readonly now: Date; readonly metadata: EventMetadata
}) => handle(jobDecider, STREAMS.job.stream(input.job_id), {
  _tag: 'PurgeJob', job_id: input.job_id, reason: input.reason, held_artifacts: input.held_artifacts, now: input.now.toISOString(),
}, { org_id: input.org_id, metadata: input.metadata })

/** Records that an artifact's blob is deleted (SPEC 3.7 steps 2-3); its event id derives from the artifact, the purge's natural key. */
export const recordBlobDeleted = (input: { readonly org_id: string; readonly job_id: string; readonly artifact_id: string; readonly now: Date; readonly metadata: EventMetadata }) =>
  handle(jobDecider, STREAMS.job.stream(input.job_id), {
    _tag: 'RecordBlobDeleted', job_id: input.job_id, artifact_id: input.artifact_id, now: input.now.toISOString(),
  }, { org_id: input.org_id, metadata: input.metadata, idSeed: `blob-deleted:${input.artifact_id}` })
