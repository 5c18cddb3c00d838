import type { JobOrigin } from '../domain/job/events.js'
import { mayBeFrom } from '../domain/job/origins.js'
import type { RecordedEvent } from '../ports/event-store.js'

const JOB_ENDS: ReadonlySet<string> = new Set(['JobSucceeded', 'JobFailed'])

/**
 * A processor's `accepts` for the ends of the jobs submitted for `origin`: a job's terminal event is accepted only when
 * its recorded origins may include `origin` (see mayBeFrom), every event of another type is. So the ends of other jobs
 * never reach the processor's handler (on the embedded log, not even a handler run is scheduled for them).
 */
export const acceptsJobEndsFrom = (origin: JobOrigin) => (recorded: RecordedEvent) =>
  !JOB_ENDS.has(recorded.type) || mayBeFrom(recorded.data as { readonly origins?: readonly JobOrigin[] }, origin)
