import { Context, type Effect } from 'effect'

/**
 * Time as a port. Everything time-based (cron fires, cooldowns, digests, webhook retries, retention, recipe health)
 * reads this clock, so tests run days in seconds with a controllable one. Timers never decide business behaviour:
 * `sleepUntil` only wakes a processor, which then asks the clock and the log what is due.
 */
export interface ClockService {
  /** The current instant. */
  readonly now: () => Date
  /** Completes once `now()` has reached `instant` (at once if it already has). Interruptible. */
  readonly sleepUntil: (instant: Date) => Effect.Effect<void>
}

export class Clock extends Context.Tag('Clock')<Clock, ClockService>() {}
