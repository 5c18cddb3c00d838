import { Effect } from 'effect'
import type { ClockService } from '../../ports/clock.js'

export interface ManualClock extends ClockService {
  /** Moves time to `instant` (never backwards) and wakes every sleeper that is now due. */
  readonly set: (instant: Date | string) => void
  /** Moves time forward by `ms` milliseconds. */
  readonly advance: (ms: number) => void
}

/**
 * A clock that moves only when told: tests (and the monitor bench) run days of schedules in seconds. Sleepers wake
 * in instant order when time passes their instant.
 */
export const makeManualClock = (start: Date | string): ManualClock => {
  let current = new Date(start).getTime()
  const sleepers = new Set<{ readonly at: number, readonly wake: () => void }>()
  const set = (instant: Date | string) => {
    const target = new Date(instant).getTime()
    if (Number.isNaN(target)) throw new Error(`not an instant: ${String(instant)}`)
    current = Math.max(current, target)
    const due = [...sleepers].filter((s) => s.at <= current).sort((a, b) => a.at - b.at)
    for (const sleeper of due) {
      sleepers.delete(sleeper)
      sleeper.wake()
    }
  }
  return {
    now: () => new Date(current),
    sleepUntil: (instant) => Effect.async<void>((resume) => {
      const at = instant.getTime()
      if (at <= current) return resume(Effect.void)
      const sleeper = { at, wake: () => resume(Effect.void) }
      sleepers.add(sleeper)
      return Effect.sync(() => sleepers.delete(sleeper))
    }),
    set,
    advance: (ms) => set(new Date(current + ms)),
  }
}
