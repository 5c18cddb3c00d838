import { Either } from 'effect'
import { NotFound, StateConflict } from '../errors.js'
import type { Decider } from '../decider.js'
import { CREDIT_WEIGHTS } from '../plans.js'
import { recipeReservation, type RecipeRunRecord } from '../recipe/run-spec.js'
import { decideCharge } from '../credits/charge.js'
import {
  ArtifactBlobDeleted, ArtifactPurged, CreditsCharged, JobDeletionRequested, JobFailed, JobPurged, JobRequested, JobStarted, JobSucceeded,
  type ArtifactRecord, type JobEvent, type Manifest, type PurgeReason,
} from './events.js'
import type { JobSpec } from './spec.js'
import { jobOrigins } from './origins.js'
import type { JobOrigin } from './origin.js'
import { INTERRUPTED_REASON, restartRefusal } from './restart.js'

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed'

export type JobState =
  | { readonly status: 'none' }
  | {
    readonly status: JobStatus; readonly job_id: string; readonly org_id: string; readonly spec: JobSpec; readonly origin: JobOrigin; readonly attempt: number
    readonly lifecycle: JobLifecycle
    /** When the last attempt started (null while queued): a restart past its deadline is refused. */
    readonly started_at: string | null
  }

/** What retention, deletion requests and purges did to a job. */
export interface JobLifecycle {
  readonly artifacts: readonly ArtifactRecord[]
  readonly deletion_requested: boolean
  /** Artifacts whose tombstone is recorded. */
  readonly purged_artifacts: ReadonlySet<string>
  /** Artifacts whose blob is recorded deleted. */
  readonly deleted_blobs: ReadonlySet<string>
  readonly purged: boolean
}

const NO_LIFECYCLE: JobLifecycle = { artifacts: [], deletion_requested: false, purged_artifacts: new Set(), deleted_blobs: new Set(), purged: false }

export type JobCommand =
  | { readonly _tag: 'RequestJob'; readonly job_id: string; readonly org_id: string; readonly api_key_id: string | null; readonly spec: JobSpec; readonly origin: JobOrigin; readonly now: string }
  | { readonly _tag: 'StartJob'; readonly job_id: string; readonly worker_id: string; readonly now: string }
  | { readonly _tag: 'SucceedJob'; readonly job_id: string; readonly manifest: Manifest; readonly artifacts: readonly ArtifactRecord[]; readonly recipe?: RecipeRunRecord; readonly now: string }
  | { readonly _tag: 'FailJob'; readonly job_id: string; readonly failure_reason: string; readonly message: string; readonly manifest?: Manifest; readonly artifacts?: readonly ArtifactRecord[]; readonly recipe?: RecipeRunRecord; readonly now: string }
  | { readonly _tag: 'RequestJobDeletion'; readonly job_id: string; readonly now: string }
  /**
   * Tombstones every artifact not held, then the job itself when none is held. The caller has checked that no
   * organization or job hold covers it; `held_artifacts` are the artifacts that stay.
   */
  | { readonly _tag: 'PurgeJob'; readonly job_id: string; readonly reason: PurgeReason; readonly held_artifacts: ReadonlySet<string>; readonly now: string }
  | { readonly _tag: 'RecordBlobDeleted'; readonly job_id: string; readonly artifact_id: string; readonly now: string }

export type JobError = NotFound | StateConflict

/** Credits a job reserves while it runs (and costs at most): a recipe run its reservation, any other job its engine weight. */
export const jobCreditWeight = (spec: JobSpec) => (spec.recipe ? recipeReservation(spec.recipe) : CREDIT_WEIGHTS[spec.job_type])

/** The job's end with what it cost, appended together: the charge is decided once, here, from the end and the origin. */
const ended = (state: Existing, end: JobSucceeded | JobFailed): readonly JobEvent[] => {
  const charge = decideCharge({ origin: state.origin, weight: jobCreditWeight(state.spec), recipe: state.spec.recipe, end })
  return charge === null ? [end] : [end, new CreditsCharged({ job_id: state.job_id, org_id: state.org_id, ...charge, charged_at: end.finished_at }, CHECKED_WHEN_ENCODED)]
}

const finished = (s: JobState) => s.status === 'succeeded' || s.status === 'failed'

const withLifecycle = (state: JobState, change: (lifecycle: JobLifecycle) => Partial<JobLifecycle>): JobState =>
  state.status === 'none' ? state : { ...state, lifecycle: { ...state.lifecycle, ...change(state.lifecycle) } }

const add = (set: ReadonlySet<string>, item: string): ReadonlySet<string> => new Set([...set, item])

type Existing = Exclude<JobState, { readonly status: 'none' }>

/** Deletion, purge and purge records: idempotent, so a sweep repeated after a crash appends nothing twice. */
const decideLifecycle = (command: Extract<JobCommand, { _tag: 'RequestJobDeletion' | 'PurgeJob' | 'RecordBlobDeleted' }>, state: Existing): Either.Either<readonly JobEvent[], JobError> => {
  const { lifecycle } = state
  switch (command._tag) {
    case 'RequestJobDeletion':
      if (lifecycle.purged) return Either.left(new NotFound({ resource: 'job', id: command.job_id }))
      if (!finished(state)) return Either.left(new StateConflict({ code: 'job_not_finished', message: `job ${command.job_id} is ${state.status}; delete it once it finished` }))
      return Either.right(lifecycle.deletion_requested ? [] : [new JobDeletionRequested({ job_id: command.job_id, requested_at: command.now })])
    case 'PurgeJob': {
      if (lifecycle.purged || !finished(state)) return Either.right([])
      const base = { job_id: command.job_id, reason: command.reason, purged_at: command.now }
      const remaining = lifecycle.artifacts.filter((a) => !lifecycle.purged_artifacts.has(a.artifact_id))
      const purgeable = remaining.filter((a) => !command.held_artifacts.has(a.artifact_id))
      const tombstones = purgeable.map((a) => new ArtifactPurged({ ...base, artifact_id: a.artifact_id, blob_key: a.blob_key }))
      return Either.right(purgeable.length === remaining.length ? [...tombstones, new JobPurged(base)] : tombstones)
    }
    case 'RecordBlobDeleted':
      if (!lifecycle.purged_artifacts.has(command.artifact_id) || lifecycle.deleted_blobs.has(command.artifact_id)) return Either.right([])
      return Either.right([new ArtifactBlobDeleted({ job_id: command.job_id, artifact_id: command.artifact_id, deleted_at: command.now })])
  }
}

/**
 * A job's request, start and end are built without the constructor's check of every field: encodeEvent checks them
 * all before anything is appended (the check was made twice per event, a job's largest being its request's spec).
 */
const CHECKED_WHEN_ENCODED = true

export const jobDecider: Decider<JobCommand, JobEvent, JobState, JobError> = {
  initialState: { status: 'none' },
  evolve: (state, event) => {
    switch (event._tag) {
      case 'JobRequested':
        return { status: 'queued', job_id: event.job_id, org_id: event.org_id, spec: event.spec, origin: event.origin, attempt: 0, lifecycle: NO_LIFECYCLE, started_at: null }
      case 'JobStarted':
        return state.status === 'none' ? state : { ...state, status: 'running', attempt: event.attempt, started_at: event.started_at }
      case 'JobSucceeded':
        return state.status === 'none' ? state : { ...state, status: 'succeeded', lifecycle: { ...state.lifecycle, artifacts: event.artifacts } }
      case 'JobFailed':
        return state.status === 'none' ? state : { ...state, status: 'failed', lifecycle: { ...state.lifecycle, artifacts: event.artifacts ?? [] } }
      case 'JobDeletionRequested':
        return withLifecycle(state, () => ({ deletion_requested: true }))
      case 'ArtifactPurged':
        return withLifecycle(state, (l) => ({ purged_artifacts: add(l.purged_artifacts, event.artifact_id) }))
      case 'JobPurged':
        return withLifecycle(state, () => ({ purged: true }))
      case 'ArtifactBlobDeleted':
        return withLifecycle(state, (l) => ({ deleted_blobs: add(l.deleted_blobs, event.artifact_id) }))
      case 'CreditsCharged':
        return state
    }
  },
  decide: (command, state) => {
    if (command._tag === 'RequestJob') {
      if (state.status !== 'none') return Either.left(new StateConflict({ code: 'job_exists', message: `job ${command.job_id} already exists` }))
      return Either.right([new JobRequested({
        job_id: command.job_id, org_id: command.org_id, api_key_id: command.api_key_id, spec: command.spec,
        credit_weight: jobCreditWeight(command.spec), requested_at: command.now, origin: command.origin,
      }, CHECKED_WHEN_ENCODED)])
    }
    if (state.status === 'none') return Either.left(new NotFound({ resource: 'job', id: command.job_id }))
    if (command._tag === 'RequestJobDeletion' || command._tag === 'PurgeJob' || command._tag === 'RecordBlobDeleted') return decideLifecycle(command, state)
    if (finished(state)) return Either.left(new StateConflict({ code: 'job_finished', message: `job ${command.job_id} already finished` }))
    switch (command._tag) {
      // A running job may be started again: its worker died before finishing (at-least-once processing), unless its
      // attempts keep dying or its deadline passed meanwhile (a poison job): then it fails instead.
      case 'StartJob': {
        const refusal = state.status === 'running' ? restartRefusal(state, command.now) : null
        if (refusal !== null) {
          return Either.right(ended(state, new JobFailed({ job_id: command.job_id, failure_reason: INTERRUPTED_REASON, message: refusal, finished_at: command.now, origins: jobOrigins(state.origin), origin: state.origin }, CHECKED_WHEN_ENCODED)))
        }
        return Either.right([new JobStarted({ job_id: command.job_id, attempt: state.attempt + 1, worker_id: command.worker_id, started_at: command.now }, CHECKED_WHEN_ENCODED)])
      }
      case 'SucceedJob':
        if (state.status !== 'running') return Either.left(new StateConflict({ code: 'job_not_running', message: 'job is not running' }))
        return Either.right(ended(state, new JobSucceeded({
          job_id: command.job_id, manifest: command.manifest, artifacts: command.artifacts, finished_at: command.now,
          ...(command.recipe ? { recipe: command.recipe } : {}), origins: jobOrigins(state.origin), origin: state.origin,
        }, CHECKED_WHEN_ENCODED)))
      case 'FailJob':
        return Either.right(ended(state, new JobFailed({
          job_id: command.job_id, failure_reason: command.failure_reason, message: command.message,
          ...(command.manifest ? { manifest: command.manifest } : {}), ...(command.artifacts ? { artifacts: command.artifacts } : {}),
          finished_at: command.now, ...(command.recipe ? { recipe: command.recipe } : {}), origins: jobOrigins(state.origin), origin: state.origin,
        }, CHECKED_WHEN_ENCODED)))
    }
  },
}
