import { Effect, Option } from 'effect'
import { decodeEvent } from '../domain/events.js'
import type { JobEvent, JobFailed, JobSucceeded } from '../domain/job/events.js'
import { STREAMS } from '../domain/streams.js'
import { Clock } from '../ports/clock.js'
import { EventStore } from '../ports/event-store.js'
import { StreamAppends, type StreamAppendsService } from '../ports/stream-appends.js'

/** How a job ended: its last event, with its log position. */
export type JobEnd =
  | { readonly succeeded: true; readonly event: JobSucceeded; readonly position: number }
  | { readonly succeeded: false; readonly event: JobFailed; readonly position: number }

/** The job's end as its own stream records it (the event store, never a read model that may lag), or null while it runs. */
export const jobEnd = (jobId: string) =>
  Effect.gen(function* () {
    const history = yield* (yield* EventStore).readStream(STREAMS.job.stream(jobId))
    for (let i = history.length - 1; i >= 0; i--) {
      const recorded = history[i]!
      const event = decodeEvent(recorded.type, recorded.data) as JobEvent
      if (event._tag === 'JobSucceeded') return { succeeded: true, event, position: recorded.position } satisfies JobEnd as JobEnd
      if (event._tag === 'JobFailed') return { succeeded: false, event, position: recorded.position } satisfies JobEnd as JobEnd
    }
    return null
  })

/** Without a signal from this process (the job ends in another one), the stream is read again after at most this long. */
const LONGEST_GAP_MS = 250
/** The first gap: short without signals; with them, the gaps only serve jobs that end in another process. */
const FIRST_GAP_MS = 5
const FIRST_GAP_WITH_SIGNALS_MS = 50

const ENDS = new Set<string>(['JobSucceeded', 'JobFailed'])

/**
 * Completes after the next append of a job end to `stream` this process signals since `listen` was called, or after
 * `gapMs`. Listening starts before the caller reads the stream, so an end appended between that read and the wait
 * still wakes it. Other appends (the job starting) do not: reading the stream again for them would find no end.
 */
const endOrGap = (appends: Option.Option<StreamAppendsService>, stream: string) => {
  let appended = 0
  let wake: (() => void) | null = null
  const stop = Option.match(appends, {
    onNone: () => () => {},
    onSome: (service) => service.listen(stream, (types) => {
      if (!types.some((type) => ENDS.has(type))) return
      appended++
      wake?.()
    }),
  })
  const next = (seen: number, gapMs: number) => Effect.async<void>((resume) => {
    if (appended > seen) return resume(Effect.void)
    const timer = setTimeout(() => { wake = null; resume(Effect.void) }, gapMs)
    wake = () => { wake = null; clearTimeout(timer); resume(Effect.void) }
    return Effect.sync(() => { clearTimeout(timer); wake = null })
  })
  return { count: () => appended, next, stop }
}

/**
 * Waits until the job ends or the Clock reaches `deadline` (then null). It reads only the job's own stream (one
 * indexed read of a few events), again each time this process appends the job's end to that stream (StreamAppends:
 * the fetcher of the embedded profile records the end in the same process, so the wait ends right after it), and at
 * doubling gaps up to 250 ms besides, for jobs that end in another process. The deadline is the Clock's, so tests
 * can move it. Meant for every "answer when the job is done" request: POST /scrapes, the v1 result long-poll.
 */
export const awaitJobEnd = (jobId: string, deadline: Date) =>
  Effect.gen(function* () {
    const clock = yield* Clock
    const appends = yield* Effect.serviceOption(StreamAppends)
    const watch = Effect.acquireUseRelease(
      Effect.sync(() => endOrGap(appends, STREAMS.job.stream(jobId))),
      (signal) => Effect.gen(function* () {
        for (let gap = Option.isSome(appends) ? FIRST_GAP_WITH_SIGNALS_MS : FIRST_GAP_MS; ; gap = Math.min(LONGEST_GAP_MS, gap * 2)) {
          const seen = signal.count()
          const end = yield* jobEnd(jobId)
          if (end !== null) return end
          yield* signal.next(seen, gap)
        }
      }),
      (signal) => Effect.sync(signal.stop),
    )
    // The deadline wins a tie: the waiting request may not answer later than promised.
    const expired = clock.sleepUntil(deadline).pipe(Effect.as(null))
    const ended = yield* jobEnd(jobId)
    if (ended !== null) return ended
    return yield* Effect.raceFirst(expired, watch)
  })

/** awaitJobEnd for at most `seconds` from the Clock's now. */
export const awaitJobEndWithin = (jobId: string, seconds: number) =>
  Effect.flatMap(Clock, (clock) => awaitJobEnd(jobId, new Date(clock.now().getTime() + seconds * 1000)))
