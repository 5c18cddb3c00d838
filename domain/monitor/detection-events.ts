/**
 * Detection's events of the monitor stream (baseline, evaluations, changes); they join MonitorEvent (events.ts).
 * The monitor decider ignores the ones it does not handle.
 */
export const DETECTION_EVENTS = [] as const
