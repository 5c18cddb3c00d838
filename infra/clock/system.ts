import { Effect } from 'effect'
import type { ClockService } from '../../ports/clock.js'

/** setTimeout's limit (2^31 - 1 ms); longer sleeps wake and sleep again. */
const MAX_TIMER_MS = 2_147_483_647

/** The machine's wall clock. */
export const systemClock: ClockService = {
  now: () => new Date(),
  sleepUntil: (instant) => Effect.suspend(function wait(): Effect.Effect<void> {
    const remaining = instant.getTime() - Date.now()
    if (remaining <= 0) return Effect.void
    return Effect.sleep(Math.min(remaining, MAX_TIMER_MS)).pipe(Effect.zipRight(Effect.suspend(wait)))
  }),
}
