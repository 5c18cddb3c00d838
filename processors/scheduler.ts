import { Duration, Effect } from 'effect'
import { Clock } from '../ports/clock.js'

/**
 * What the scheduler drives: a family of owners with schedules (v1 monitors; the account API's content monitors plug in
 * the same way). The scheduler holds no state: every wake it asks the clock what time it is and the source what is due.
 */
export interface ScheduleSource<R> {
  readonly name: string
  /** Owners whose next fire is at or before `now`, at most `limit`, earliest first (a read model may lag: see `fire`). */
  readonly due: (now: Date, limit: number) => Effect.Effect<readonly string[], unknown, R>
  /** The earliest next fire of any active owner, or null when none is scheduled. */
  readonly earliest: Effect.Effect<Date | null, unknown, R>
  /**
   * Fires what is due for one owner at `now`, deciding from the owner's own stream (never from the read model): the
   * fire is an event whose run id derives from (owner, scheduled instant), appended with the expected revision, so a
   * restart or a second scheduler never fires an instant twice. Answers the scheduled instant of the fire it recorded,
   * or null when it recorded none.
   */
  readonly fire: (ownerId: string, now: Date) => Effect.Effect<Date | null, unknown, R>
}

export interface SchedulerOptions {
  /**
   * Real-time period after which the scheduler looks again even if no fire is due (new or changed schedules, a read
   * model catching up). It only wakes the loop; what fires is decided by the clock and the streams.
   */
  readonly pollMs: number
  /** Owners fired at once. */
  readonly concurrency: number
  readonly log: (message: string, detail?: unknown) => void
  /** Told of every recorded fire: its source and how long after its scheduled instant it fired. */
  readonly onFired?: (source: string, delaySeconds: number) => void
}

const BATCH = 500

/** One pass: fires every due owner of every source. Answers how many fires were recorded. */
export const schedulerPass = <R>(sources: readonly ScheduleSource<R>[], now: Date, options: Pick<SchedulerOptions, 'concurrency' | 'log' | 'onFired'>) =>
  Effect.gen(function* () {
    let fired = 0
    for (const source of sources) {
      const due = yield* source.due(now, BATCH)
      yield* Effect.forEach(due, (ownerId) => source.fire(ownerId, now).pipe(
        Effect.map((scheduledFor) => {
          if (scheduledFor === null) return
          fired++
          options.onFired?.(source.name, (now.getTime() - scheduledFor.getTime()) / 1000)
        }),
        Effect.catchAllCause((cause) => Effect.sync(() => options.log(`${source.name}: firing ${ownerId} failed; retried on the next pass`, String(cause)))),
      ), { concurrency: options.concurrency, discard: true })
    }
    return fired
  })

/**
 * The scheduler role's loop: a pass, then sleep until the earliest next fire on the Clock, or the poll period in
 * real time, whichever comes first. Runs until interrupted.
 */
export const runScheduler = <R>(sources: readonly ScheduleSource<R>[], options: SchedulerOptions) =>
  Effect.gen(function* () {
    const clock = yield* Clock
    for (;;) {
      const now = clock.now()
      const fired = yield* schedulerPass(sources, now, options).pipe(
        Effect.catchAllCause((cause) => Effect.sync(() => { options.log('scheduler pass failed; retried', String(cause)); return 0 })),
      )
      if (fired > 0) continue
      const earliest = (yield* Effect.forEach(sources, (s) => Effect.orElseSucceed(s.earliest, () => null)))
        .filter((d): d is Date => d !== null).sort((a, b) => a.getTime() - b.getTime())[0]
      const poll = Effect.sleep(Duration.millis(options.pollMs))
      yield* earliest !== undefined && earliest > now ? Effect.race(clock.sleepUntil(earliest), poll) : poll
    }
  })
