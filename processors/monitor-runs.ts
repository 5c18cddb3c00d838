import { Effect } from 'effect'
import { submitAdmittedJob } from '../commands/admit-job.js'
import { loadJob } from '../commands/jobs.js'
import { loadMonitor, runMonitorCommand } from '../commands/monitors.js'
import type { Allowlist } from '../domain/address-policy.js'
import type { JobFailed, JobSucceeded } from '../domain/job/events.js'
import type { MonitorCommand } from '../domain/monitor/decider.js'
import { acceptsJobEndsFrom } from './job-ends-from.js'
import { monitorRunJob, monitorRunKey } from '../domain/monitor/run-job.js'
import { runOutcome } from '../domain/monitor/run-outcome.js'
import type { PlanName } from '../domain/plans.js'
import { Clock } from '../ports/clock.js'
import type { EventEnvelope } from '../ports/event-store.js'
import { defineProcessor } from './processor.js'
import type { Run } from './runner.js'
import type { DocumentStore } from '../ports/document-store.js'
import type { EventStore } from '../ports/event-store.js'
import type { HostResolver } from '../ports/host-resolver.js'
import type { Usage } from '../ports/usage.js'

export interface MonitorRunsOptions {
  readonly allowlist: Allowlist
  /** The organization's current plan (its runs are admitted under it). */
  readonly planOf: (orgId: string) => Effect.Effect<PlanName, unknown, DocumentStore>
  readonly log: (message: string, detail?: unknown) => void
}

/**
 * The monitor-run processor: mints the job of each fired run through the same admission as POST /v1/jobs (key null:
 * only the plan's limits), records the run skipped (free, the monitor decider choosing how) when admission refuses it, and completes the run from its
 * job's terminal event. Idempotent: the job id derives from the run (its natural key), and the monitor decider
 * ignores a mint, skip or completion it already recorded.
 */
export const makeMonitorRunsProcessor = (options: MonitorRunsOptions, run: Run<EventStore | DocumentStore | Usage | HostResolver | Clock>) => {
  const command = (orgId: string, envelope: EventEnvelope, cmd: MonitorCommand) =>
    runMonitorCommand(cmd, orgId, {
      metadata: { correlation_id: envelope.metadata.correlation_id, causation_id: envelope.event_id, actor: 'scheduler' },
      idSeed: envelope.event_id,
    })

  const mint = (monitorId: string, runId: string, envelope: EventEnvelope) => Effect.gen(function* () {
    const state = yield* loadMonitor(monitorId)
    if (state.status === 'none') return
    const inFlight = state.in_flight[runId]
    if (!inFlight || inFlight.job_id !== null) return
    const now = (yield* Clock).now()
    const at = now.toISOString()
    const plan = yield* options.planOf(state.org_id)
    const spec = monitorRunJob(state.job, state.detection)
    const admitted = yield* submitAdmittedJob({
      org_id: state.org_id, plan, key: null, enforcement: 'block', spec, allowlist: options.allowlist, now,
      origin: { _tag: 'monitor_run', monitor_id: monitorId, run_id: runId }, natural_key: monitorRunKey(monitorId, runId),
      metadata: { correlation_id: envelope.metadata.correlation_id, causation_id: envelope.event_id, actor: 'scheduler' },
    }).pipe(
      Effect.map((admission) => ({ _tag: 'minted' as const, job_id: admission.job_id })),
      Effect.catchTag('AdmissionRejected', (rejected) => Effect.succeed({ _tag: 'rejected' as const, code: rejected.code, message: rejected.message })),
      Effect.catchTag('ValidationFailed', (failed) => Effect.succeed({ _tag: 'error' as const, detail: failed.errors.map((e) => `${e.code}: ${e.message}`).join('; ') })),
    )
    const base = { monitor_id: monitorId, run_id: runId, now: at }
    if (admitted._tag === 'minted') return yield* command(state.org_id, envelope, { _tag: 'RecordMint', ...base, job_id: admitted.job_id })
    if (admitted._tag === 'rejected') {
      return yield* command(state.org_id, envelope, { _tag: 'SkipRun', ...base, refusal: { code: admitted.code, message: admitted.message } })
    }
    return yield* command(state.org_id, envelope, { _tag: 'CompleteRun', ...base, job_id: null, status: 'error', detail: admitted.detail })
  })

  const complete = (event: JobSucceeded | JobFailed, envelope: EventEnvelope) => Effect.gen(function* () {
    const job = yield* loadJob(event.job_id)
    if (job.state.status === 'none' || job.state.origin._tag !== 'monitor_run') return
    const origin = job.state.origin
    // The run is completed only by a job of the monitor's own organization that its run minted (or is minting).
    const monitor = yield* loadMonitor(origin.monitor_id)
    if (monitor.status === 'none' || monitor.org_id !== job.state.org_id) return
    const minted = monitor.in_flight[origin.run_id]?.job_id
    if (minted !== undefined && minted !== null && minted !== event.job_id) return
    const outcome = runOutcome(event)
    yield* command(monitor.org_id, envelope, {
      _tag: 'CompleteRun', monitor_id: origin.monitor_id, run_id: origin.run_id, job_id: event.job_id,
      status: outcome.status, detail: outcome.detail, now: event.finished_at,
    })
  })

  /** A failure nobody expected while minting ends the run as `error` instead of retrying forever. */
  const mintOrError = (monitorId: string, runId: string, envelope: EventEnvelope) =>
    mint(monitorId, runId, envelope).pipe(Effect.catchAll((error) => Effect.gen(function* () {
      if ((error as { _tag?: string })._tag === 'StoreUnavailable') return yield* Effect.fail(error)
      options.log('a monitor run could not be minted', { monitor_id: monitorId, run_id: runId, error: String((error as { _tag?: string })._tag ?? error) })
      const state = yield* loadMonitor(monitorId)
      if (state.status === 'none') return
      const now = (yield* Clock).now().toISOString()
      yield* command(state.org_id, envelope, { _tag: 'CompleteRun', monitor_id: monitorId, run_id: runId, job_id: null, status: 'error', detail: `unexpected failure creating the run: ${(error as { _tag?: string })._tag ?? 'error'}`, now })
    })))

  return defineProcessor({
    name: 'processor.monitor-runs',
    categories: ['monitor', 'job'],
    types: ['MonitorRunFired', 'MonitorRunDequeued', 'JobSucceeded', 'JobFailed'],
    accepts: acceptsJobEndsFrom('monitor_run'),
    log: options.log,
    handle: async (event, envelope) => {
      switch (event._tag) {
        case 'MonitorRunFired':
          if (!event.queued) await run(mintOrError(event.monitor_id, event.run_id, envelope))
          return
        case 'MonitorRunDequeued':
          await run(mintOrError(event.monitor_id, event.run_id, envelope))
          return
        case 'JobSucceeded':
        case 'JobFailed':
          await run(complete(event, envelope))
          return
        default:
          return
      }
    },
  })
}
