import { Either } from 'effect'
import { NotFound, StateConflict } from '../errors.js'
import type { Decider } from '../decider.js'
import { CREDIT_WEIGHTS } from '../plans.js'
import { recipeReservation, type RecipeRunRecord } from '../recipe/run-spec.js'
import { JobFailed, JobRequested, JobStarted, JobSucceeded, type ArtifactRecord, type JobEvent, type Manifest } from './events.js'
import type { JobSpec } from './spec.js'

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed'

export type JobState =
  | { readonly status: 'none' }
  | { readonly status: JobStatus; readonly job_id: string; readonly org_id: string; readonly spec: JobSpec; readonly attempt: number }

export type JobCommand =
  | { readonly _tag: 'RequestJob'; readonly job_id: string; readonly org_id: string; readonly api_key_id: string | null; readonly spec: JobSpec; readonly now: string }
  | { readonly _tag: 'StartJob'; readonly job_id: string; readonly worker_id: string; readonly now: string }
  | { readonly _tag: 'SucceedJob'; readonly job_id: string; readonly manifest: Manifest; readonly artifacts: readonly ArtifactRecord[]; readonly recipe?: RecipeRunRecord; readonly now: string }
  | { readonly _tag: 'FailJob'; readonly job_id: string; readonly failure_reason: string; readonly message: string; readonly manifest?: Manifest; readonly artifacts?: readonly ArtifactRecord[]; readonly recipe?: RecipeRunRecord; readonly now: string }

export type JobError = NotFound | StateConflict

/** Credits a job reserves while it runs (and costs at most): a recipe run its reservation, any other job its engine weight. */
export const jobCreditWeight = (spec: JobSpec) => (spec.recipe ? recipeReservation(spec.recipe) : CREDIT_WEIGHTS[spec.job_type])

/**
 * Credits a finished job costs: a recipe run what its runner recorded (never above its reservation), any other job
 * its weight when it succeeded; failed jobs cost nothing.
 */
export const creditsCharged = (outcome: { readonly succeeded: boolean; readonly recipe?: { readonly credits_charged: number } | undefined }, weight: number) =>
  outcome.recipe ? Math.min(weight, outcome.recipe.credits_charged) : outcome.succeeded ? weight : 0

const finished = (s: JobState) => s.status === 'succeeded' || s.status === 'failed'

export const jobDecider: Decider<JobCommand, JobEvent, JobState, JobError> = {
  initialState: { status: 'none' },
  evolve: (state, event) => {
    switch (event._tag) {
      case 'JobRequested':
        return { status: 'queued', job_id: event.job_id, org_id: event.org_id, spec: event.spec, attempt: 0 }
      case 'JobStarted':
        return state.status === 'none' ? state : { ...state, status: 'running', attempt: event.attempt }
      case 'JobSucceeded':
        return state.status === 'none' ? state : { ...state, status: 'succeeded' }
      case 'JobFailed':
        return state.status === 'none' ? state : { ...state, status: 'failed' }
    }
  },
  decide: (command, state) => {
    if (command._tag === 'RequestJob') {
      if (state.status !== 'none') return Either.left(new StateConflict({ code: 'job_exists', message: `job ${command.job_id} already exists` }))
      return Either.right([new JobRequested({
        job_id: command.job_id, org_id: command.org_id, api_key_id: command.api_key_id, spec: command.spec,
        credit_weight: jobCreditWeight(command.spec), requested_at: command.now,
      })])
    }
    if (state.status === 'none') return Either.left(new NotFound({ resource: 'job', id: command.job_id }))
    if (finished(state)) return Either.left(new StateConflict({ code: 'job_finished', message: `job ${command.job_id} already finished` }))
    switch (command._tag) {
      // A running job may be started again: its worker died before finishing (at-least-once processing).
      case 'StartJob':
        return Either.right([new JobStarted({ job_id: command.job_id, attempt: state.attempt + 1, worker_id: command.worker_id, started_at: command.now })])
      case 'SucceedJob':
        if (state.status !== 'running') return Either.left(new StateConflict({ code: 'job_not_running', message: 'job is not running' }))
        return Either.right([new JobSucceeded({ job_id: command.job_id, manifest: command.manifest, artifacts: command.artifacts, finished_at: command.now, ...(command.recipe ? { recipe: command.recipe } : {}) })])
      case 'FailJob':
        return Either.right([new JobFailed({
          job_id: command.job_id, failure_reason: command.failure_reason, message: command.message,
          ...(command.manifest ? { manifest: command.manifest } : {}), ...(command.artifacts ? { artifacts: command.artifacts } : {}),
          finished_at: command.now, ...(command.recipe ? { recipe: command.recipe } : {}),
        })])
    }
  },
}
