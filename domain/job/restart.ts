import type { JobSpec } from './spec.js'

/**
 * Poison jobs (docs/poison-jobs.md): a job whose attempts keep being interrupted (its worker died: a crash, a kill, a
 * stalled process killed by its supervisor) is not started without end, since the job itself may be what kills them.
 */

/** Starts a job may have: once this many attempts were interrupted, it fails instead of starting again. */
export const MAX_JOB_STARTS = 3

/** Beyond the job's own timeout, the time an attempt may take to store its artifacts and record its end. */
export const ATTEMPT_GRACE_MS = 60_000

/** The `failure_reason` of a job failed instead of being started again. */
export const INTERRUPTED_REASON = 'job_interrupted'

/** How long one attempt may run at most: its timeout (per page a recipe run may fetch) and the grace. */
export const attemptDeadlineMs = (spec: JobSpec) => spec.timeout_ms * (spec.recipe?.max_pages ?? 1) + ATTEMPT_GRACE_MS

/**
 * Why a running job (its last attempt interrupted) must not start again at `now`, or null when it may: its last
 * attempt's deadline has passed (it stalled past it, or the service was down past it: either way it could no longer
 * end in time), or it has started MAX_JOB_STARTS times.
 */
export const restartRefusal = (running: { readonly spec: JobSpec; readonly attempt: number; readonly started_at: string | null }, now: string): string | null => {
  if (running.attempt >= MAX_JOB_STARTS) {
    return `the job was started ${running.attempt} times and every attempt was interrupted before it ended; it is not started again`
  }
  const deadline = running.started_at === null ? null : Date.parse(running.started_at) + attemptDeadlineMs(running.spec)
  if (deadline !== null && Date.parse(now) > deadline) {
    return `attempt ${running.attempt} was interrupted and its deadline (${new Date(deadline).toISOString()}) has passed; the job is not started again`
  }
  return null
}
