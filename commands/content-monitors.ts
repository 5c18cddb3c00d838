import { randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import type { Allowlist } from '../domain/address-policy.js'
import { NotFound, ValidationFailed } from '../domain/errors.js'
import { contentMonitorDecider, type ContentMonitorCommand, type ContentMonitorState, type RunResult } from '../domain/content-monitor/decider.js'
import type { ContentMonitorCreation, ContentMonitorEvent } from '../domain/content-monitor/events.js'
import { contentMonitorQuotaDecider } from '../domain/content-monitor/quota.js'
import type { ContentMonitorChanges, ContentMonitorFields } from '../domain/content-monitor/request.js'
import { runJobRequest } from '../domain/content-monitor/run-job.js'
import { validateJobSpec } from '../domain/job/spec.js'
import type { PlanName } from '../domain/plans.js'
import { dueFire, isTimeZone, nextFireAfter, scheduledRunId, type Schedule } from '../domain/schedule/schedule.js'
import { STREAMS } from '../domain/streams.js'
import { Clock } from '../ports/clock.js'
import { EventStore, type EventMetadata } from '../ports/event-store.js'
import { Usage } from '../ports/usage.js'
import { submitAdmittedJob } from './admit-job.js'
import { loadJob } from './jobs.js'
import { deterministicId, handle, foldHistory } from './handle.js'

export type ExistingMonitor = Extract<ContentMonitorState, { exists: true }>

export const loadContentMonitor = (monitorId: string) =>
  Effect.gen(function* () {
    const history = yield* (yield* EventStore).readStream(STREAMS['content-monitor'].stream(monitorId))
    return foldHistory(contentMonitorDecider, history)
  })

/**
 * A monitor of the organization, whichever of its users made it (colleagues share its monitors as its jobs); another
 * organization's is indistinguishable from a missing one.
 */
const orgMonitor = (orgId: string, monitorId: string) =>
  Effect.flatMap(loadContentMonitor(monitorId), (state) => state.exists && state.org_id === orgId
    ? Effect.succeed(state)
    : Effect.fail(new NotFound({ resource: 'content_monitor', id: monitorId })))

const runMonitorCommand = (command: ContentMonitorCommand, orgId: string, metadata: EventMetadata) =>
  handle(contentMonitorDecider, STREAMS['content-monitor'].stream(command.monitor_id), command, { org_id: orgId, metadata })

const quota = (command: 'ClaimPlace' | 'ReleasePlace', userId: string, orgId: string, monitorId: string, now: Date, metadata: EventMetadata) =>
  handle(contentMonitorQuotaDecider, STREAMS['content-monitor-quota'].stream(userId), { _tag: command, user_id: userId, monitor_id: monitorId, now: now.toISOString() }, { org_id: orgId, metadata })

/** Runs every `frequency` minutes from the monitor's creation. */
const scheduleOf = (monitor: { readonly created_at: string; readonly frequency_minutes: number }): Schedule =>
  ({ kind: 'every', minutes: monitor.frequency_minutes, anchor: new Date(monitor.created_at) })

const nextRunAt = (monitor: { readonly created_at: string; readonly frequency_minutes: number }, now: Date) =>
  nextFireAfter(scheduleOf(monitor), now)!.toISOString()

/**
 * Creates an active monitor: first a place among the user's 50 active ones (claimed on the user's quota stream with
 * the expected revision, so concurrent creates cannot overshoot; the claim records the whole creation), then the
 * monitor, from that claim. Should this process stop in between, the runner completes the create from the claim.
 */
export const createContentMonitor = (input: { readonly user_id: string; readonly org_id: string; readonly fields: ContentMonitorFields; readonly metadata: EventMetadata }) =>
  Effect.gen(function* () {
    const now = (yield* Clock).now()
    const monitorId = randomUUID()
    const { fields } = input
    const creation: ContentMonitorCreation = {
      org_id: input.org_id, ...(fields.name !== undefined ? { name: fields.name } : {}), url: fields.url, backend: fields.backend,
      frequency_minutes: fields.frequencyMinutes, rule: fields.rule,
      next_run_at: nextRunAt({ created_at: now.toISOString(), frequency_minutes: fields.frequencyMinutes }, now), created_at: now.toISOString(),
    }
    // One claim of the user's at a time in this process (the expected revision guards across processes), so a
    // burst of creates queues instead of exhausting its conflict retries.
    yield* (yield* Usage).serialized(`content-monitor-quota:${input.user_id}`, handle(contentMonitorQuotaDecider, STREAMS['content-monitor-quota'].stream(input.user_id),
      { _tag: 'ClaimPlace', user_id: input.user_id, monitor_id: monitorId, now: now.toISOString(), creation }, { org_id: input.org_id, metadata: input.metadata }))
    const handled = yield* createClaimedContentMonitor(input.user_id, monitorId, creation, input.metadata)
    return { monitor_id: monitorId, position: handled.position }
  })

/** Creates the monitor a claim was made for (idempotent: a monitor already created stays as it is). */
export const createClaimedContentMonitor = (userId: string, monitorId: string, creation: ContentMonitorCreation, metadata: EventMetadata) =>
  runMonitorCommand({
    _tag: 'CreateContentMonitor', monitor_id: monitorId, user_id: userId, org_id: creation.org_id,
    fields: {
      ...(creation.name !== undefined ? { name: creation.name } : {}), url: creation.url, backend: creation.backend,
      frequencyMinutes: creation.frequency_minutes, rule: creation.rule,
    },
    next_run_at: creation.next_run_at, now: creation.created_at,
  }, creation.org_id, metadata)

/** PATCH: becoming active claims a place (422 monitor_limit_reached when none is left); leaving active frees it. */
export const updateContentMonitor = (orgId: string, monitorId: string, changes: ContentMonitorChanges, metadata: EventMetadata) =>
  Effect.gen(function* () {
    const now = (yield* Clock).now()
    const monitor = yield* orgMonitor(orgId, monitorId)
    const status = changes.status ?? monitor.status
    // The place is its maker's, whoever changes it: the release (here, or at auto-disable) frees that same quota.
    if (status === 'active' && monitor.status !== 'active') yield* quota('ClaimPlace', monitor.user_id, monitor.org_id, monitorId, now, metadata)
    const frequency = changes.frequencyMinutes ?? monitor.frequency_minutes
    const handled = yield* runMonitorCommand({
      _tag: 'UpdateContentMonitor', monitor_id: monitorId, changes,
      next_run_at: status === 'active' ? nextRunAt({ created_at: monitor.created_at, frequency_minutes: frequency }, now) : null, now: now.toISOString(),
    }, monitor.org_id, metadata)
    if (status !== 'active' && monitor.status === 'active') yield* quota('ReleasePlace', monitor.user_id, monitor.org_id, monitorId, now, metadata)
    return { position: handled.position }
  })

export interface RequestRun {
  readonly org_id: string
  readonly monitor_id: string
  readonly force: boolean
  readonly plan: PlanName
  readonly allowlist: Allowlist
  readonly metadata: EventMetadata
}

/**
 * Asks for a run. `force`: now, and its job is admitted at once (a run refused by the plan's limits is `skipped`, at
 * no cost). Otherwise the run of the monitor's next scheduled instant is recorded `pending` (the same run however
 * often it is asked for); the scheduler starts it when it is due. Run ids derive from (monitor, instant).
 */
export const requestContentMonitorRun = (input: RequestRun) =>
  Effect.gen(function* () {
    const now = (yield* Clock).now()
    const monitor = yield* orgMonitor(input.org_id, input.monitor_id)
    const scheduledAt = input.force ? now.toISOString() : nextRunAt(monitor, now)
    // A scheduled instant's run has the id the scheduler gives it, so asking for it ahead changes nothing.
    const runId = input.force ? deterministicId(`content-monitor-run:${input.monitor_id}:${scheduledAt}`) : scheduledRunId(input.monitor_id, new Date(scheduledAt))
    const requested = yield* runMonitorCommand({
      _tag: 'RequestRun', monitor_id: input.monitor_id, run_id: runId, scheduled_at: scheduledAt, forced: input.force,
      next_run_at: monitor.status === 'active' ? nextRunAt(monitor, now) : null, now: now.toISOString(),
    }, monitor.org_id, input.metadata)
    if (!input.force || requested.events.length === 0) return { run_id: runId, position: requested.position }
    return { run_id: runId, position: yield* startRun(monitor, runId, input.plan, input.allowlist, input.metadata) }
  })

export interface ScheduledRunOptions<R> {
  readonly allowlist: Allowlist
  readonly planOf: (orgId: string) => Effect.Effect<PlanName, unknown, R>
}

/**
 * The scheduler's fire for one monitor at `now`, decided from its stream: the latest due instant of its every-N-minutes
 * schedule after those handled (earlier missed ones coalesce into it), whose run id derives from (monitor, instant),
 * requested and started on the same path as a forced run. A restart or a second scheduler finds the run requested
 * (or already started) and records nothing new. Answers whether it recorded anything.
 */
export const fireScheduledContentMonitorRun = <R>(monitorId: string, now: Date, options: ScheduledRunOptions<R>) =>
  Effect.gen(function* () {
    const monitor = yield* loadContentMonitor(monitorId)
    if (!monitor.exists || monitor.status !== 'active') return null
    const due = dueFire(scheduleOf(monitor), new Date(monitor.handled_up_to), now)
    if (due === null) return null
    const runId = scheduledRunId(monitorId, due.scheduled_for)
    const metadata: EventMetadata = { correlation_id: runId, causation_id: null, actor: 'scheduler' }
    const requested = yield* runMonitorCommand({
      _tag: 'RequestRun', monitor_id: monitorId, run_id: runId, scheduled_at: due.scheduled_for.toISOString(), forced: false,
      next_run_at: nextRunAt(monitor, now), now: now.toISOString(),
    }, monitor.org_id, metadata)
    // Still pending when it was asked for ahead (POST .../runs without force) or a crash came between request and start.
    const current = yield* loadContentMonitor(monitorId)
    if (!current.exists || current.runs.get(runId) !== 'pending') return requested.events.length > 0 ? due.scheduled_for : null
    yield* startRun(current, runId, yield* options.planOf(current.org_id), options.allowlist, metadata)
    return due.scheduled_for
  })

/** Admits the run's job (its id is the run's) and records the start, or records the run skipped when admission refuses it. */
const startRun = (monitor: ExistingMonitor, runId: string, plan: PlanName, allowlist: Allowlist, metadata: EventMetadata) =>
  Effect.gen(function* () {
    const now = (yield* Clock).now()
    const checked = validateJobSpec(runJobRequest(monitor), { allowlist, isTimeZone })
    const admitted = checked.ok
      ? yield* Effect.either(submitAdmittedJob({
        job_id: runId, org_id: monitor.org_id, plan, key: null, enforcement: 'block', spec: checked.spec,
        origin: { _tag: 'content_monitor_run', monitor_id: monitor.monitor_id, run_id: runId }, allowlist, now, metadata,
      }))
      : null
    // Refused because another scheduler (or a retry) admitted this very job first: the run started all the same.
    const refusedAfterAdmission = admitted?._tag === 'Left' && (yield* loadJob(runId)).state.status !== 'none'
    if ((admitted === null || admitted._tag === 'Left') && !refusedAfterAdmission) {
      const error = admitted?._tag === 'Left' ? admitted.left : null
      const reason = error === null ? 'invalid_target' : error._tag === 'AdmissionRejected' ? error.code : error instanceof ValidationFailed ? error.errors[0]?.code ?? 'invalid_target' : 'admission_failed'
      return (yield* finishRun(monitor, runId, { _tag: 'Skipped', reason }, metadata)).position
    }
    return (yield* runMonitorCommand({ _tag: 'StartRun', monitor_id: monitor.monitor_id, run_id: runId, now: now.toISOString() }, monitor.org_id, metadata)).position
  })

/** Records how a run ended; the decider applies the rule, counts failures and disables after too many. */
export const finishRun = (monitor: ExistingMonitor, runId: string, result: RunResult, metadata: EventMetadata) =>
  Effect.gen(function* () {
    const now = (yield* Clock).now()
    return yield* runMonitorCommand({
      _tag: 'FinishRun', monitor_id: monitor.monitor_id, run_id: runId, result,
      next_run_at: monitor.status === 'active' ? nextRunAt(monitor, now) : null, now: now.toISOString(),
    }, monitor.org_id, metadata)
  })

/** Frees an auto-disabled monitor's place among the user's active ones (idempotent). */
export const releaseContentMonitorPlace = (monitor: ExistingMonitor, metadata: EventMetadata) =>
  Effect.flatMap(Clock, (clock) => quota('ReleasePlace', monitor.user_id, monitor.org_id, monitor.monitor_id, clock.now(), metadata))
