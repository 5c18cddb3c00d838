import { fieldError, type FieldError } from '../errors.js'
import type { Plan } from '../plans.js'
import { shortestGapSeconds } from '../schedule/gaps.js'
import type { MonitorFields } from './decider.js'

/** Every cron fires at whole minutes, so no gap is shorter than a minute: a one-minute floor needs no computation. */
const CRON_RESOLUTION_SECONDS = 60

/**
 * The plan rules of SPEC 8 a monitor must meet (at creation, on update and after a plan change): monitoring in the
 * plan, its engine in the plan, change detection in the plan, and no two fires closer than the plan's minimum interval
 * over the coming year in the monitor's time zone. The count limits are the quota's (quota.ts).
 */
export const planProblems = (fields: Pick<MonitorFields, 'cron' | 'timezone' | 'job' | 'detection'>, plan: Plan, now: Date): FieldError[] => {
  if (plan.monitoring === null) return [fieldError('plan', 'monitoring_not_in_plan', `the ${plan.name} plan does not include monitoring`)]
  const problems: FieldError[] = []
  if (!plan.engines.includes(fields.job.job_type)) {
    problems.push(fieldError('job_type', 'job_type_not_in_plan', `the ${plan.name} plan does not include the ${fields.job.job_type} engine`))
  }
  if (fields.detection.enabled && plan.changeDetection === null) {
    problems.push(fieldError('detection.enabled', 'detection_not_in_plan', `the ${plan.name} plan does not include change detection`))
  }
  const minimum = plan.monitoring.minIntervalSeconds
  if (minimum > CRON_RESOLUTION_SECONDS) {
    const shortest = shortestGapSeconds({ kind: 'cron', cron: fields.cron, timezone: fields.timezone }, now)
    if (shortest < minimum) {
      problems.push(fieldError('cron', 'interval_below_plan_minimum', `two runs of this schedule come ${shortest} seconds apart in ${fields.timezone}; the ${plan.name} plan's minimum interval is ${minimum} seconds`))
    }
  }
  return problems
}

/** How many other monitors of the organization are active, and how many of those use change detection. */
export interface ActiveMonitors {
  readonly active: number
  readonly detecting: number
}

/** Why the plan has no room for one more active monitor (with detection when `detection`) besides `others`. */
export const countProblems = (detection: boolean, others: ActiveMonitors, plan: Plan): FieldError[] => {
  const monitors = plan.monitoring?.maxMonitors ?? 0
  if (others.active >= monitors) return [fieldError('plan', 'monitor_limit_reached', `the ${plan.name} plan allows ${monitors} active monitors`)]
  const detecting = plan.changeDetection?.maxMonitors ?? 0
  if (detection && others.detecting >= detecting) {
    return [fieldError('detection.enabled', 'detection_limit_reached', `the ${plan.name} plan allows change detection on ${detecting} active monitors`)]
  }
  return []
}

/**
 * The oldest instant of a monitor's history the plan shows (SPEC 8 `history_days`): changes detected and runs fired
 * before it are no longer listed nor readable. A plan without change detection keeps no history.
 */
export const historyStart = (plan: Plan, now: Date): string =>
  new Date(now.getTime() - (plan.changeDetection?.historyDays ?? 0) * 86_400_000).toISOString()
