import { randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import { NotFound } from '../domain/errors.js'
import { monitorDecider, type MonitorCommand, type MonitorFields, type MonitorState } from '../domain/monitor/decider.js'
import type { MonitorEvent, PauseReason } from '../domain/monitor/events.js'
import type { ActiveMonitors } from '../domain/monitor/plan-rules.js'
import { monitorQuotaDecider, type MonitorQuotaCommand, type MonitorQuotaEvent } from '../domain/monitor/quota.js'
import type { Plan } from '../domain/plans.js'
import { STREAMS } from '../domain/streams.js'
import { EventStore, type EventMetadata } from '../ports/event-store.js'
import { handle, type CommandContext, foldHistory } from './handle.js'

type Live = Exclude<MonitorState, { status: 'none' }>

export const loadMonitor = (monitorId: string) =>
  Effect.gen(function* () {
    const history = yield* (yield* EventStore).readStream(STREAMS.monitor.stream(monitorId))
    return foldHistory(monitorDecider, history)
  })

/** The organization's monitor; another organization's, a deleted or a missing one is not found. */
export const loadOwnMonitor = (orgId: string, monitorId: string) =>
  Effect.flatMap(loadMonitor(monitorId), (state): Effect.Effect<Live, NotFound> =>
    state.status === 'none' || state.status === 'deleted' || state.org_id !== orgId
      ? Effect.fail(new NotFound({ resource: 'monitor', id: monitorId }))
      : Effect.succeed(state))

export const runMonitorCommand = (command: MonitorCommand, orgId: string, ctx: Omit<CommandContext, 'org_id'>) =>
  handle(monitorDecider, STREAMS.monitor.stream(command.monitor_id), command, { ...ctx, org_id: orgId })

const runQuotaCommand = (command: MonitorQuotaCommand, metadata: EventMetadata) =>
  handle(monitorQuotaDecider, STREAMS['monitor-quota'].stream(command.org_id), command, { org_id: command.org_id, metadata })

export interface MonitorRequestContext {
  readonly org_id: string
  readonly plan: Plan
  readonly now: Date
  readonly metadata: EventMetadata
}

/** Claims a place under the plan's rules and limits (the quota decider's), then records the monitor. */
export const createMonitor = (fields: MonitorFields, ctx: MonitorRequestContext) =>
  Effect.gen(function* () {
    const monitorId = `mon_${randomUUID().replaceAll('-', '')}`
    const now = ctx.now.toISOString()
    yield* runQuotaCommand({ _tag: 'ClaimPlace', org_id: ctx.org_id, monitor_id: monitorId, monitor: fields, plan: ctx.plan, now }, ctx.metadata)
    const handled = yield* runMonitorCommand({ _tag: 'CreateMonitor', monitor_id: monitorId, org_id: ctx.org_id, fields, now }, ctx.org_id, { metadata: ctx.metadata })
    return { monitor_id: monitorId, position: handled.position }
  })

/**
 * Applies validated changes: the quota decider first checks that the result still fits the plan (and claims a
 * detection place when detection turns on; otherwise it records nothing).
 */
export const updateMonitor = (monitorId: string, changes: Partial<MonitorFields>, ctx: MonitorRequestContext) =>
  Effect.gen(function* () {
    const current = yield* loadOwnMonitor(ctx.org_id, monitorId)
    const now = ctx.now.toISOString()
    yield* runQuotaCommand({ _tag: 'ClaimPlace', org_id: ctx.org_id, monitor_id: monitorId, monitor: { ...current, ...changes }, plan: ctx.plan, now }, ctx.metadata)
    return yield* runMonitorCommand({ _tag: 'UpdateMonitor', monitor_id: monitorId, changes, now }, ctx.org_id, { metadata: ctx.metadata })
  })

export const pauseMonitor = (monitorId: string, reason: PauseReason, detail: string, ctx: Omit<MonitorRequestContext, 'plan'>) =>
  Effect.gen(function* () {
    yield* loadOwnMonitor(ctx.org_id, monitorId)
    return yield* runMonitorCommand({ _tag: 'PauseMonitor', monitor_id: monitorId, reason, detail, now: ctx.now.toISOString() }, ctx.org_id, { metadata: ctx.metadata })
  })

export const deleteMonitor = (monitorId: string, ctx: Omit<MonitorRequestContext, 'plan'>) =>
  Effect.gen(function* () {
    yield* loadOwnMonitor(ctx.org_id, monitorId)
    const now = ctx.now.toISOString()
    const handled = yield* runMonitorCommand({ _tag: 'DeleteMonitor', monitor_id: monitorId, now }, ctx.org_id, { metadata: ctx.metadata })
    yield* runQuotaCommand({ _tag: 'ReleasePlace', org_id: ctx.org_id, monitor_id: monitorId, now }, ctx.metadata)
    return handled
  })

/** A run now, outside the schedule, under the same overlap policy. */
export const runMonitorNow = (monitorId: string, ctx: Omit<MonitorRequestContext, 'plan'>) =>
  Effect.gen(function* () {
    yield* loadOwnMonitor(ctx.org_id, monitorId)
    const now = ctx.now.toISOString()
    const runId = `run_${randomUUID().replaceAll('-', '').slice(0, 24)}`
    const handled = yield* runMonitorCommand({ _tag: 'FireRun', monitor_id: monitorId, run_id: runId, trigger: 'manual', scheduled_for: now, missed: 0, now }, ctx.org_id, { metadata: ctx.metadata })
    const event = handled.events.find((e) => e._tag === 'MonitorRunFired' || e._tag === 'MonitorFireOverlapped')
    const outcome = event?._tag === 'MonitorRunFired' ? (event.queued ? 'queued' as const : 'fired' as const) : event?._tag === 'MonitorFireOverlapped' ? event.outcome : 'skipped' as const
    return { run_id: event?._tag === 'MonitorRunFired' ? runId : null, outcome, position: handled.position }
  })

/** The organization's monitors that hold a place (not deleted), oldest first, as its quota stream records them. */
const monitorsOfOrg = (orgId: string) =>
  Effect.gen(function* () {
    const history = yield* (yield* EventStore).readStream(STREAMS['monitor-quota'].stream(orgId))
    const places = foldHistory(monitorQuotaDecider, history)
    const states = yield* Effect.forEach([...places.keys()], loadMonitor)
    return states.filter((s): s is Live => s.status !== 'none' && s.status !== 'deleted' && s.org_id === orgId)
  })

const countOf = (monitors: readonly Live[]): ActiveMonitors =>
  ({ active: monitors.length, detecting: monitors.filter((m) => m.detection.enabled).length })

/** A paused monitor resumes only when it fits the current plan beside the other active ones (the monitor decider's rule). */
export const resumeMonitor = (monitorId: string, ctx: MonitorRequestContext) =>
  Effect.gen(function* () {
    yield* loadOwnMonitor(ctx.org_id, monitorId)
    const others = (yield* monitorsOfOrg(ctx.org_id)).filter((m) => m.status === 'active' && m.monitor_id !== monitorId)
    return yield* runMonitorCommand({ _tag: 'ResumeMonitor', monitor_id: monitorId, plan: ctx.plan, others: countOf(others), now: ctx.now.toISOString() }, ctx.org_id, { metadata: ctx.metadata })
  })

/**
 * After a plan change (SPEC 3.4): each active monitor of the organization, oldest first, is fitted to the plan beside
 * the ones kept so far; the monitor decider pauses (reason `plan`) one that no longer fits (monitoring, engine,
 * detection, minimum interval, then the counts), so the oldest keep running. Idempotent: paused monitors are left as
 * they are, so a second pass over the same plan pauses nothing. Answers the ids it paused.
 */
export const pauseMonitorsOverPlan = (ctx: MonitorRequestContext) =>
  Effect.gen(function* () {
    const active = (yield* monitorsOfOrg(ctx.org_id)).filter((m) => m.status === 'active')
    const kept: Live[] = []
    const paused: string[] = []
    const now = ctx.now.toISOString()
    for (const monitor of active) {
      const fitted = yield* runMonitorCommand({ _tag: 'FitPlan', monitor_id: monitor.monitor_id, plan: ctx.plan, kept: countOf(kept), now }, ctx.org_id, { metadata: ctx.metadata })
      if (fitted.events.length === 0) kept.push(monitor)
      else paused.push(monitor.monitor_id)
    }
    return paused
  })
