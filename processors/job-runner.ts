import { randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import { loadJob, runJobCommand } from '../commands/jobs.js'
import { creditsCharged, jobCreditWeight, type JobCommand } from '../domain/job/decider.js'
import type { JobType } from '../domain/job/spec.js'
import type { ArtifactRecord } from '../domain/job/events.js'
import { failure, type Engine, type EngineArtifact } from '../fetchers/engine.js'
import { jobManifest, jobTiming } from '../fetchers/manifest.js'
import { BlobStore } from '../ports/blob-store.js'
import type { EventEnvelope, EventStore } from '../ports/event-store.js'
import type { MetricsService } from '../ports/metrics.js'
import { defineProcessor } from './processor.js'
import { runRecipeJob, type RecipeRunOptions } from './recipe-run.js'
import type { Run } from './runner.js'

export interface JobRunnerOptions {
  readonly engines: Partial<Record<JobType, Engine>>
  readonly workerId: string
  readonly log: (message: string, detail?: unknown) => void
  /** The recipes this fetcher runs (jobs with a recipe block); without it such jobs fail with engine_unavailable. */
  readonly recipes?: RecipeRunOptions
  /** Where finished jobs are counted (tier, outcome, duration, credits). */
  readonly metrics?: MetricsService
}

export const artifactKey = (orgId: string, jobId: string, artifactId: string) => `jobs/${orgId}/${jobId}/${artifactId}`

const storeArtifacts = (orgId: string, jobId: string, artifacts: readonly EngineArtifact[]) =>
  Effect.gen(function* () {
    const blobs = yield* BlobStore
    // At most 4 at once; a single artifact (a light job's page) is stored in this fiber, without one forked for it.
    return yield* Effect.forEach(artifacts, (artifact) => Effect.gen(function* () {
      const artifactId = randomUUID()
      const key = artifactKey(orgId, jobId, artifactId)
      const stored = yield* blobs.put(key, artifact.bytes, artifact.content_type)
      const record: ArtifactRecord = {
        artifact_id: artifactId, artifact_type: artifact.artifact_type, content_type: artifact.content_type,
        size: stored.size, sha256: stored.sha256, blob_key: key, created_at: new Date().toISOString(),
      }
      return record
    }), { concurrency: Math.min(4, artifacts.length) })
  })

/**
 * The fetcher processor: reacts to JobRequested, runs the tier's engine, stores artifacts and records the outcome.
 * Idempotent: a redelivered request for a finished job does nothing; one for a job whose worker died runs it again,
 * and the expected-revision append lets exactly one terminal event win.
 */
export const makeJobRunner = (options: JobRunnerOptions, run: Run<EventStore | BlobStore>) => {
  const shutdown = new AbortController()
  const ctx = (envelope: EventEnvelope) => ({
    metadata: { correlation_id: envelope.metadata.correlation_id, causation_id: envelope.event_id, actor: `fetcher:${options.workerId}` },
  })

  const now = () => new Date().toISOString()

  /**
   * Loads the job and records its start, in one run. Null when there is nothing to run (an unknown or finished job);
   * `engine` null when no engine of this fetcher can run it (it is then failed at once, and a start recorded by an
   * earlier attempt is no conflict).
   */
  const start = (jobId: string, envelope: EventEnvelope) =>
    Effect.gen(function* () {
      const { state } = yield* loadJob(jobId)
      if (state.status === 'none' || state.status === 'succeeded' || state.status === 'failed') return null
      const engine = options.engines[state.spec.job_type]
      const runnable = engine !== undefined && (!state.spec.recipe || options.recipes !== undefined)
      const starting = runJobCommand({ _tag: 'StartJob', job_id: jobId, worker_id: options.workerId, now: now() }, state.org_id, ctx(envelope))
      yield* runnable ? starting : starting.pipe(Effect.catchTag('StateConflict', () => Effect.void))
      return { state, engine: runnable ? engine : null }
    })

  const runJob = async (jobId: string, envelope: EventEnvelope): Promise<void> => {
    const started = await run(start(jobId, envelope))
    if (started === null) return
    const { state, engine } = started
    const startedAt = performance.now()
    /**
     * Stores the artifacts and records the end the outcome makes of their records, in one run. Only the worker whose
     * terminal event was appended counts the job: a lost race (StateConflict) counts nothing.
     */
    const finish = async (outcome: (artifacts: readonly ArtifactRecord[]) => JobCommand, artifacts: readonly EngineArtifact[] = []) => {
      const { command, appended } = await run(Effect.gen(function* () {
        const command = outcome(yield* storeArtifacts(state.org_id, jobId, artifacts))
        const appended = yield* runJobCommand(command, state.org_id, ctx(envelope)).pipe(
          Effect.as(true), Effect.catchTag('StateConflict', () => Effect.succeed(false)),
        )
        return { command, appended }
      }))
      if (!appended) return
      const succeeded = command._tag === 'SucceedJob'
      options.metrics?.jobFinished({
        tier: state.spec.job_type, outcome: succeeded ? 'succeeded' : 'failed', seconds: (performance.now() - startedAt) / 1000,
        credits: creditsCharged({ succeeded, recipe: 'recipe' in command ? command.recipe : undefined }, jobCreditWeight(state.spec)),
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
        (artifacts) => run(storeArtifacts(state.org_id, jobId, artifacts)))
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
        if (event._tag === 'JobRequested') await runJob(event.job_id, envelope)
      },
    }),
    /** In-flight jobs stop; they are not checkpointed, so they run again after the restart. */
    abort: () => shutdown.abort(),
  }
}
