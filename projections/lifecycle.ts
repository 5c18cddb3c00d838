import type { EventEnvelope } from '../ports/event-store.js'
import { collection, defineProjection, updateDoc, type DocumentView, type Stored } from './projection.js'

export interface LifecycleArtifact {
  readonly artifact_id: string
  readonly blob_key: string
  /** `live`, tombstoned (`purged`), or tombstoned with its blob deleted (`deleted`). */
  readonly state: 'live' | 'purged' | 'deleted'
}

/**
 * The purger's work list: one document per job that has something left to purge. `open` while the job is finished
 * and not yet tombstoned; `blobs_pending` while a tombstoned artifact's blob is not recorded deleted (a crash between
 * the two steps). A job with nothing left (`open` and `blobs_pending` false) is done.
 */
export type LifecycleJobDoc = Stored<{
  readonly job_id: string
  readonly org_id: string
  readonly created_at: string
  readonly finished: boolean
  readonly deletion_requested: boolean
  readonly purged: boolean
  readonly open: boolean
  readonly blobs_pending: boolean
  readonly artifact_ids: readonly string[]
  readonly artifacts: readonly LifecycleArtifact[]
}>

export const LIFECYCLE_JOBS = collection<LifecycleJobDoc>('lifecycle_jobs')

type Fields = Omit<LifecycleJobDoc, '_id' | '_position' | 'open' | 'blobs_pending'>

/**
 * Sets the flags on `doc`, a value its caller has just built (every change below builds a new one), rather than
 * copying it once more: a second copy per event was a tenth of replay's lifecycle folding. A document read from the
 * view is never passed here.
 */
const withFlags = (doc: Fields): Omit<LifecycleJobDoc, '_id' | '_position'> => {
  const flagged = doc as { -readonly [K in keyof LifecycleJobDoc]?: LifecycleJobDoc[K] } & Fields
  flagged.open = doc.finished && !doc.purged
  flagged.blobs_pending = doc.artifacts.some((a) => a.state === 'purged')
  return flagged as Omit<LifecycleJobDoc, '_id' | '_position'>
}

/** Changes a job's document (one its JobRequested made), flags set. A function of its own, not a closure per event. */
const changeJob = (view: DocumentView, jobId: string, envelope: EventEnvelope, f: (doc: Fields) => Fields) =>
  updateDoc(view, LIFECYCLE_JOBS, jobId, envelope, (doc) => doc && withFlags(f(doc)))

const setArtifact = (doc: Fields, artifactId: string, state: LifecycleArtifact['state']): Fields =>
  ({ ...doc, artifacts: doc.artifacts.map((a) => a.artifact_id === artifactId ? { ...a, state } : a) })

export const lifecycleProjection = defineProjection({
  name: 'projection.lifecycle',
  categories: ['job'],
  collections: [LIFECYCLE_JOBS.name],
  indexes: [
    { collection: LIFECYCLE_JOBS.name, fields: [['org_id', 1], ['open', 1], ['created_at', 1]] },
    { collection: LIFECYCLE_JOBS.name, fields: [['deletion_requested', 1], ['open', 1]] },
    { collection: LIFECYCLE_JOBS.name, fields: [['blobs_pending', 1]] },
    { collection: LIFECYCLE_JOBS.name, fields: [['artifact_ids', 1]] },
  ],
  concurrency: 8,
  ordering: 'stream',
  fold: (event, envelope, view) => {
    switch (event._tag) {
      case 'JobRequested':
        return updateDoc(view, LIFECYCLE_JOBS, event.job_id, envelope, () => withFlags({
          job_id: event.job_id, org_id: event.org_id, created_at: event.requested_at,
          finished: false, deletion_requested: false, purged: false, artifact_ids: [], artifacts: [],
        }))
      case 'JobSucceeded':
      case 'JobFailed': {
        const artifacts = event.artifacts ?? []
        return changeJob(view, event.job_id, envelope, (doc) => ({
          ...doc, finished: true, artifact_ids: artifacts.map((a) => a.artifact_id),
          artifacts: artifacts.map((a) => ({ artifact_id: a.artifact_id, blob_key: a.blob_key, state: 'live' })),
        }))
      }
      case 'JobDeletionRequested':
        return changeJob(view, event.job_id, envelope, (doc) => ({ ...doc, deletion_requested: true }))
      case 'ArtifactPurged':
        return changeJob(view, event.job_id, envelope, (doc) => setArtifact(doc, event.artifact_id, 'purged'))
      case 'ArtifactBlobDeleted':
        return changeJob(view, event.job_id, envelope, (doc) => setArtifact(doc, event.artifact_id, 'deleted'))
      case 'JobPurged':
        return changeJob(view, event.job_id, envelope, (doc) => ({ ...doc, purged: true }))
      default:
        return
    }
  },
})
