import { randomUUID } from 'node:crypto'
import { Effect, Either } from 'effect'
import { STREAMS } from '../domain/streams.js'
import { jobDecider, type JobCommand, type JobError, type JobState } from '../domain/job/decider.js'
import type { JobSpec } from '../domain/job/spec.js'
import type { JobEvent, JobRequested } from '../domain/job/events.js'
import type { JobOrigin } from '../domain/job/origin.js'
import { EventStore, type EventMetadata } from '../ports/event-store.js'
import { deterministicId, handle, handleNow, type CommandContext, type Handled, type KnownStream, type StoreNow, foldHistory } from './handle.js'
import type { StateConflict } from '../domain/errors.js'

export interface SubmitJob {
  /** Chosen by the caller (ignored with an idempotency token or a natural key, which derive the id); a new one otherwise. */
  readonly job_id?: string
  /**
   * The natural key of work the service submits for itself (a monitor's run, a health test run): the job id derives
   * from it in a namespace no customer idempotency token reaches, and submitting it again answers the first job.
   */
  readonly natural_key?: string
  readonly org_id: string
  readonly api_key_id: string | null
  readonly spec: JobSpec
  /** Where the job comes from, decided by the caller's command (never read from the spec's customer fields). */
  readonly origin: JobOrigin
  readonly now: Date
  readonly metadata: EventMetadata
}

/**
 * With an idempotency token the job id is derived from (organization, token), so concurrent submissions
 * race for the same stream and exactly one JobRequested is appended; the others read the original back.
 */
export const idempotentJobId = (orgId: string, token: string) => deterministicId(`idempotency:${orgId}:${token}`)

/** The job id of work the service keys itself: customer tokens derive theirs under `idempotency:`, never this. */
export const naturalJobId = (naturalKey: string) => deterministicId(`natural:${naturalKey}`)

/** The id a second submission of the same job finds: from the customer's token or the service's natural key; none for other jobs. */
export const replayableJobId = (input: { readonly org_id: string; readonly spec: JobSpec; readonly natural_key?: string | undefined }): string | undefined =>
  input.natural_key !== undefined ? naturalJobId(input.natural_key)
    : input.spec.idempotency_token !== undefined ? idempotentJobId(input.org_id, input.spec.idempotency_token) : undefined

const requestOf = (input: SubmitJob) => {
  const given = replayableJobId(input) ?? input.job_id
  const jobId = given ?? randomUUID()
  const command: JobCommand = {
    _tag: 'RequestJob', job_id: jobId, org_id: input.org_id, api_key_id: input.api_key_id, spec: input.spec, origin: input.origin, now: input.now.toISOString(),
  }
  const ctx: CommandContext = { org_id: input.org_id, metadata: input.metadata }
  return { jobId, command, ctx, stream: STREAMS.job.stream(jobId), fresh: given === undefined }
}

/**
 * The stream of a job id drawn here has no events: it is not read before the append, which expects no stream (should
 * one exist after all, the append fails on it and handleNow reads the stream, as after any conflict).
 */
const NEW_STREAM: KnownStream<JobState> = { state: jobDecider.initialState, last: undefined }

const submitted = (jobId: string, handled: Handled<JobEvent>) => ({
  job_id: jobId, created: true,
  requested: handled.events.find((event): event is JobRequested => event._tag === 'JobRequested') ?? null,
  position: handled.position,
})

/** With a token or natural key, the job exists already: another submission of the same work created it. */
const alreadyRequested = (input: SubmitJob, error: JobError): error is StateConflict =>
  error._tag === 'StateConflict' && error.code === 'job_exists' && replayableJobId(input) !== undefined

export const submitJob = (input: SubmitJob) =>
  Effect.suspend(() => {
    const { jobId, command, ctx, stream } = requestOf(input)
    return handle(jobDecider, stream, command, ctx).pipe(
      Effect.map((handled) => submitted(jobId, handled)),
      Effect.catchIf((e): e is StateConflict => e._tag === 'StateConflict' && alreadyRequested(input, e), () => Effect.succeed({ job_id: jobId, created: false, requested: null, position: 0 })),
    )
  })

/** submitJob done at once on a store that answers synchronously: throws the command's failure, WrongExpectedRevision or StoreUnavailable. */
export const submitJobNow = (store: StoreNow, input: SubmitJob) => {
  const { jobId, command, ctx, stream, fresh } = requestOf(input)
  const handled = handleNow(jobDecider, store, stream, command, ctx, fresh ? NEW_STREAM : undefined)
  if (Either.isRight(handled)) return submitted(jobId, handled.right)
  if (alreadyRequested(input, handled.left)) return { job_id: jobId, created: false, requested: null, position: 0 }
  throw handled.left
}

export const loadJob = (jobId: string) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const history = yield* store.readStream(STREAMS.job.stream(jobId))
    return { state: foldHistory(jobDecider, history), revision: history.length - 1 }
  })

/** Commands issued by processors on behalf of the system. */
export const runJobCommand = (command: JobCommand, orgId: string, ctx: Omit<CommandContext, 'org_id'>) =>
  handle(jobDecider, STREAMS.job.stream(command.job_id), command, { ...ctx, org_id: orgId })
