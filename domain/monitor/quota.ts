import { Either, Schema } from 'effect'
import type { Decider } from '../decider.js'
import { fieldError, ValidationFailed } from '../errors.js'
import type { Plan } from '../plans.js'
import type { MonitorFields } from './decider.js'
import { planProblems } from './plan-rules.js'

/**
 * The monitors an organization holds (not deleted), in one stream `monitor-quota-<org>`: creating a monitor first
 * claims a place here with the expected revision, so two concurrent creations cannot both take the last place.
 */
export class MonitorPlaceClaimed extends Schema.TaggedClass<MonitorPlaceClaimed>()('MonitorPlaceClaimed', {
  org_id: Schema.String,
  monitor_id: Schema.String,
  /** Whether the monitor uses change detection (counted against the plan's detection monitors). */
  detection: Schema.Boolean,
  at: Schema.String,
}) {}

export class MonitorPlaceReleased extends Schema.TaggedClass<MonitorPlaceReleased>()('MonitorPlaceReleased', {
  org_id: Schema.String,
  monitor_id: Schema.String,
  at: Schema.String,
}) {}

export const MonitorQuotaEvent = Schema.Union(MonitorPlaceClaimed, MonitorPlaceReleased)
export type MonitorQuotaEvent = typeof MonitorQuotaEvent.Type

/** Monitor id to whether it uses detection. */
export type MonitorQuotaState = ReadonlyMap<string, boolean>

export type MonitorQuotaCommand =
  /**
   * Claims (or, for a monitor already holding a place, updates) a place for a monitor as created or updated: it must
   * meet the plan's rules (planProblems) and, when it takes a new place or starts using detection, its counts.
   */
  | {
    readonly _tag: 'ClaimPlace'; readonly org_id: string; readonly monitor_id: string
    readonly monitor: Pick<MonitorFields, 'cron' | 'timezone' | 'job' | 'detection'>; readonly plan: Plan; readonly now: string
  }
  | { readonly _tag: 'ReleasePlace'; readonly org_id: string; readonly monitor_id: string; readonly now: string }

const countOf = (state: MonitorQuotaState, except: string, detectionOnly: boolean) =>
  [...state].filter(([id, detection]) => id !== except && (!detectionOnly || detection)).length

export const monitorQuotaDecider: Decider<MonitorQuotaCommand, MonitorQuotaEvent, MonitorQuotaState, ValidationFailed> = {
  initialState: new Map(),
  evolve: (state, event) => {
    const next = new Map(state)
    if (event._tag === 'MonitorPlaceClaimed') next.set(event.monitor_id, event.detection)
    else next.delete(event.monitor_id)
    return next
  },
  decide: (command, state) => {
    if (command._tag === 'ReleasePlace') {
      return Either.right(state.has(command.monitor_id) ? [new MonitorPlaceReleased({ org_id: command.org_id, monitor_id: command.monitor_id, at: command.now })] : [])
    }
    const problems = planProblems(command.monitor, command.plan, new Date(command.now))
    if (problems.length > 0) return Either.left(new ValidationFailed({ errors: problems }))
    const detection = command.monitor.detection.enabled
    if (state.get(command.monitor_id) === detection) return Either.right([])
    const { monitoring, changeDetection } = command.plan
    if (monitoring !== null && countOf(state, command.monitor_id, false) >= monitoring.maxMonitors) {
      return Either.left(new ValidationFailed({ errors: [fieldError('plan', 'monitor_limit_reached', `the ${command.plan.name} plan allows ${monitoring.maxMonitors} monitors`)] }))
    }
    if (detection && changeDetection !== null && countOf(state, command.monitor_id, true) >= changeDetection.maxMonitors) {
      return Either.left(new ValidationFailed({ errors: [fieldError('detection.enabled', 'detection_limit_reached', `the ${command.plan.name} plan allows change detection on ${changeDetection.maxMonitors} monitors`)] }))
    }
    return Either.right([new MonitorPlaceClaimed({ org_id: command.org_id, monitor_id: command.monitor_id, detection, at: command.now })])
  },
}
