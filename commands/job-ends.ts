import { Effect } from 'effect'
import { decodeEvent } from '../domain/events.js'
import type { JobEvent, JobFailed, JobSucceeded } from '../domain/job/events.js'
import { STREAMS } from '../domain/streams.js'
import { Clock } from '../ports/clock.js'
import { EventStore } from '../ports/event-store.js'

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

const FIRST_LOOK_MS = 5
const LONGEST_GAP_MS = 250

/**
 * Waits until the job ends or the Clock reaches `deadline` (then null). It reads only the job's own stream (one
 * indexed read of a few events), first after 5 ms, then at doubling gaps up to 250 ms, so a fast job is answered
 * within milliseconds and a slow one costs a handful of reads a second; the deadline is the Clock's, so tests can
 * move it. Meant for every "answer when the job is done" request: POST /scrapes, the v1 result long-poll.
 */
export const awaitJobEnd = (jobId: string, deadline: Date) =>
  Effect.gen(function* () {
    const clock = yield* Clock
    const watch = Effect.gen(function* () {
      for (let gap = FIRST_LOOK_MS; ; gap = Math.min(LONGEST_GAP_MS, gap * 2)) {
        const end = yield* jobEnd(jobId)
        if (end !== null) return end
        yield* Effect.sleep(gap)
      }
    })
    // The deadline wins a tie: the waiting request may not answer later than promised.
    const expired = clock.sleepUntil(deadline).pipe(Effect.as(null))
    const ended = yield* jobEnd(jobId)
    if (ended !== null) return ended
    return yield* Effect.raceFirst(expired, watch)
  })
