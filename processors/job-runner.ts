import { randomUUID } from 'node:crypto'
import { Effect, Either } from 'effect'
import { handleNow, loadNow, storeNow, type KnownStream, type StoreNow } from '../commands/handle.js'
import { loadJob, runJobCommand } from '../commands/jobs.js'
import { jobDecider, type JobCommand, type JobState } from '../domain/job/decider.js'
import { STREAMS } from '../domain/streams.js'
import type { JobType } from '../domain/job/spec.js'
import type { ArtifactRecord } from '../domain/job/events.js'
import { failure, type Engine, type EngineArtifact } from '../fetchers/engine.js'
import { FairLanes, type FairLanesLimits } from '../fetchers/fair-lanes.js'
import { jobManifest, jobTiming } from '../fetchers/manifest.js'
import { BlobStore, type BlobStoreService, type StoredBlob } from '../ports/blob-store.js'
import type { ClockService } from '../ports/clock.js'
import type { EventEnvelope, EventStore, EventStoreService } from '../ports/event-store.js'
import type { MetricsService } from '../ports/metrics.js'
import { defineProcessor } from './processor.js'
import { runRecipeJob, type RecipeRunOptions } from './recipe-run.js'
import type { Run } from './runner.js'

export interface JobRunnerOptions {
  readonly engines: Partial<Record<JobType, Engine>>
  readonly workerId: string
  readonly log: (message: string, detail?: unknown) => void
  /** The time a job's start, end and artifacts are recorded at (the service's Clock, so a manual one drives them too). */
  readonly clock: ClockService
  /** The recipes this fetcher runs (jobs with a recipe block); without it such jobs fail with engine_unavailable. */
  readonly recipes?: RecipeRunOptions
  /** Where finished jobs are counted (tier, outcome, duration, credits). */
  readonly metrics?: MetricsService
  /**
   * Optional: the event store `run` provides, so a store that reads and appends in the calling turn records a job's
   * start and end without an effect run (and its end without reading the stream again).
   */
  readonly events?: EventStoreService
  /** Optional: the blob store `run` provides, so one that writes small blobs at once stores a page without an effect run. */
  readonly blobs?: BlobStoreService
  /**
   * Optional: the slots of each tier (fetch slots of the light tier, browser contexts of the others), shared by
   * organizations in lanes served round-robin (docs/fair-queueing.md); a job waits queued for its organization's turn.
   * A tier not named runs its jobs as they come.
   */
  readonly slots?: Partial<Record<JobType, FairLanesLimits>>
}

export const artifactKey = (orgId: string, jobId: string, artifactId: string) => `jobs/${orgId}/${jobId}/${artifactId}`

const artifactRecord = (artifact: EngineArtifact, artifactId: string, stored: StoredBlob, createdAt: string): ArtifactRecord => ({
  artifact_id: artifactId, artifact_type: artifact.artifact_type, content_type: artifact.content_type,
  size: stored.size, sha256: stored.sha256, blob_key: stored.key, created_at: createdAt,
})

const storeArtifacts = (orgId: string, jobId: string, artifacts: readonly EngineArtifact[], createdAt: string) =>
  Effect.gen(function* () {
    const blobs = yield* BlobStore
    // At most 4 at once; a single artifact (a light job's page) is stored in this fiber, without one forked for it.
    return yield* Effect.forEach(artifacts, (artifact) => Effect.gen(function* () {
      const artifactId = randomUUID()
      return artifactRecord(artifact, artifactId, yield* blobs.put(artifactKey(orgId, jobId, artifactId), artifact.bytes, artifact.content_type), createdAt)
    }), { concurrency: Math.min(4, artifacts.length) })
  })

/**
 * The fetcher processor: reacts to JobRequested, runs the tier's engine, stores artifacts and records the outcome.
 * Idempotent: a redelivered request for a finished job does nothing; one for a job whose worker died runs it again,
 * and the expected-revision append lets exactly one terminal event win.
 */
export const makeJobRunner = (options: JobRunnerOptions, run: Run<EventStore | BlobStore>) => {
  const shutdown = new AbortController()
  const eventsNow = options.events ? storeNow(options.events) : null
  const blobsNow = options.blobs?.putNow ? (options.blobs as BlobStoreService & Required<Pick<BlobStoreService, 'putNow'>>) : null
  const ctx = (envelope: EventEnvelope) => ({
    metadata: { correlation_id: envelope.metadata.correlation_id, causation_id: envelope.event_id, actor: `fetcher:${options.workerId}` },
  })

  const now = () => options.clock.now().toISOString()
  const lanes = new Map(Object.entries(options.slots ?? {}).map(([tier, limits]) => [tier, new FairLanes(limits)]))

  /**
   * What a job's state asks of this fetcher: null when there is nothing to run (an unknown or finished job); `engine`
   * null when no engine of this fetcher can run it (it is then failed at once, and a start recorded by an earlier
   * attempt is no conflict).
   */
  const planOf = (state: JobState) => {
    if (state.status === 'none' || state.status === 'succeeded' || state.status === 'failed') return null
    const engine = options.engines[state.spec.job_type]
    const runnable = engine !== undefined && (!state.spec.recipe || options.recipes !== undefined)
    return { state, engine: runnable ? engine : null }
  }
  const startCommand = (jobId: string): JobCommand => ({ _tag: 'StartJob', job_id: jobId, worker_id: options.workerId, now: now() })

  /** Loads the job and records its start, in one run. */
  const start = (jobId: string, envelope: EventEnvelope) =>
    Effect.gen(function* () {
      const plan = planOf((yield* loadJob(jobId)).state)
      if (plan === null) return null
      const starting = runJobCommand(startCommand(jobId), plan.state.org_id, ctx(envelope))
      const started = yield* plan.engine ? starting : starting.pipe(Effect.catchTag('StateConflict', () => Effect.succeed(null)))
      if (started?.events.some((event) => event._tag === 'JobFailed')) return null
      return { ...plan, afterStart: undefined }
    })

  /**
   * `start` at once, on a store that reads and appends in the calling turn: the stream is read once, and the state the
   * start leaves is kept (`afterStart`), so the end is recorded without reading the stream again.
   */
  const startNow = (store: StoreNow, jobId: string, envelope: EventEnvelope) => {
    const stream = STREAMS.job.stream(jobId)
    const known = loadNow(jobDecider, store, stream)
    const plan = planOf(known.state)
    if (plan === null) return null
    const started = handleNow(jobDecider, store, stream, startCommand(jobId), { ...ctx(envelope), org_id: plan.state.org_id }, known)
    if (Either.isLeft(started)) {
      if (plan.engine || started.left._tag !== 'StateConflict') throw started.left
      return { ...plan, afterStart: undefined }
    }
    const afterStart: KnownStream<JobState> = {
      state: started.right.events.reduce(jobDecider.evolve, known.state),
      last: { revision: started.right.revision, position: started.right.position },
    }
    // Not started again but failed (a poison job: docs/poison-jobs.md).
    if (afterStart.state.status === 'failed') return null
    return { ...plan, afterStart }
  }

  /** Records a job's end at once (from the state its start left, when known): the events appended, null when another worker's end was. */
  const endNow = (store: StoreNow, command: JobCommand, orgId: string, envelope: EventEnvelope, afterStart: KnownStream<JobState> | undefined) => {
    const ended = handleNow(jobDecider, store, STREAMS.job.stream(command.job_id), command, { ...ctx(envelope), org_id: orgId }, afterStart)
    if (Either.isRight(ended)) return ended.right.events
    if (ended.left._tag === 'StateConflict') return null
    throw ended.left
  }

  /**
   * storeArtifacts with the blob store's putNow, which writes a small artifact (a light job's page) at once, without
   * an effect run; a larger one, or any on a store without putNow, is stored by `put` in a run.
   */
  const storeArtifactsNow = (orgId: string, jobId: string, artifacts: readonly EngineArtifact[]) => {
    const blobs = blobsNow
    const createdAt = now()
    if (blobs === null) return run(storeArtifacts(orgId, jobId, artifacts, createdAt))
    return Promise.all(artifacts.map(async (artifact) => {
      const artifactId = randomUUID()
      const key = artifactKey(orgId, jobId, artifactId)
      return artifactRecord(artifact, artifactId, blobs.putNow(key, artifact.bytes, artifact.content_type) ?? await run(blobs.put(key, artifact.bytes, artifact.content_type)), createdAt)
    }))
  }

  const runJob = async (jobId: string, envelope: EventEnvelope): Promise<void> => {
    const store = eventsNow
    const started = store ? startNow(store, jobId, envelope) : await run(start(jobId, envelope))
    if (started === null) return
    const { state, engine, afterStart } = started
    const startedAt = performance.now()
    /**
     * Stores the artifacts and records the end the outcome makes of their records (in one run, or at once when the
     * store answers in the calling turn): whether this worker's terminal event was appended (false: a lost race).
     */
    const recordEnd = async (outcome: (artifacts: readonly ArtifactRecord[]) => JobCommand, artifacts: readonly EngineArtifact[]) => {
      if (store) {
        const command = outcome(artifacts.length === 0 ? [] : await storeArtifactsNow(state.org_id, jobId, artifacts))
        return { command, appended: endNow(store, command, state.org_id, envelope, afterStart) }
      }
      return run(Effect.gen(function* () {
        const command = outcome(yield* storeArtifacts(state.org_id, jobId, artifacts, now()))
        const appended = yield* runJobCommand(command, state.org_id, ctx(envelope)).pipe(
          Effect.map((handled) => handled.events), Effect.catchTag('StateConflict', () => Effect.succeed(null)),
        )
        return { command, appended }
      }))
    }
    /** Records the end; only the worker whose terminal event was appended counts the job, at the charge appended with it. */
    const finish = async (outcome: (artifacts: readonly ArtifactRecord[]) => JobCommand, artifacts: readonly EngineArtifact[] = []) => {
      const { command, appended } = await recordEnd(outcome, artifacts)
      if (appended === null) return
      options.metrics?.jobFinished({
        tier: state.spec.job_type, outcome: command._tag === 'SucceedJob' ? 'succeeded' : 'failed', seconds: (performance.now() - startedAt) / 1000,
        credits: appended.reduce((sum, event) => sum + (event._tag === 'CreditsCharged' ? event.credits : 0), 0),
      })
    }

    if (engine === null) {
      const manifest = jobManifest({ egress: null, engine: { tier: state.spec.job_type }, timing: null, response: null })
      await finish(() => ({ _tag: 'FailJob', job_id: jobId, failure_reason: 'engine_unavailable', message: `the ${state.spec.job_type} engine is not available on this deployment`, manifest, now: now() }))
      return
    }
    const recipeBlock = state.spec.recipe
    if (recipeBlock && options.recipes) {
      const command = await runRecipeJob(jobId, state.org_id, { ...state.spec, recipe: recipeBlock }, engine, options.recipes, shutdown.signal, now,
        (artifacts) => run(storeArtifacts(state.org_id, jobId, artifacts, now())))
      if (shutdown.signal.aborted) throw new Error('abandoned at shutdown')
      await finish(() => command)
      return
    }
    const engineStartedAt = Date.now()
    const outcome = await engine.run({ job_id: jobId, org_id: state.org_id, spec: state.spec, signal: shutdown.signal }).catch((error: unknown) => {
      if (shutdown.signal.aborted) throw error
      options.log(`engine ${engine.tier} crashed on job ${jobId}`, error)
      return failure('engine_error', 'the engine failed unexpectedly', {
        manifest: jobManifest({ egress: null, engine: { tier: engine.tier }, timing: jobTiming(engineStartedAt), response: null }),
      })
    })
    if (shutdown.signal.aborted) throw new Error('abandoned at shutdown')
    await finish((artifacts) => outcome.ok
      ? { _tag: 'SucceedJob', job_id: jobId, manifest: outcome.manifest, artifacts, now: now() }
      : {
        _tag: 'FailJob', job_id: jobId, failure_reason: outcome.failure_reason, message: outcome.message,
        ...(outcome.manifest ? { manifest: outcome.manifest } : {}), artifacts, now: now(),
      }, outcome.artifacts ?? [])
  }

  return {
    ...defineProcessor({
      name: 'processor.fetcher',
      categories: ['job'],
      types: ['JobRequested'],
      log: options.log,
      handle: async (event, envelope) => {
        if (event._tag !== 'JobRequested') return
        const tier = lanes.get(event.spec.job_type)
        // The job waits, queued, for its organization's turn at a slot of its tier: another organization's backlog
        // is served alongside, not ahead of it.
        await (tier ? tier.run(event.org_id, () => runJob(event.job_id, envelope), shutdown.signal) : runJob(event.job_id, envelope))
      },
    }),
    /** In-flight jobs stop; they are not checkpointed, so they run again after the restart. */
    abort: () => shutdown.abort(),
  }
}
