import type { JobOriginKind } from '../domain/job/origin.js'
import { mayBeFrom } from '../domain/job/origins.js'
import type { RecordedEvent } from '../ports/event-store.js'

const JOB_ENDS: ReadonlySet<string> = new Set(['JobSucceeded', 'JobFailed'])

const recordedOrigins = (data: unknown): { readonly origins?: readonly string[] } => {
  const origins = typeof data === 'object' && data !== null && 'origins' in data ? data.origins : undefined
  return Array.isArray(origins) ? { origins: origins.filter((o): o is string => typeof o === 'string') } : {}
}

/**
 * A processor's `accepts` for the ends of the jobs of origin `kind`: a job's terminal event is accepted only when its
 * recorded origins may include `kind` (see mayBeFrom), every event of another type is. So the ends of other jobs
 * never reach the processor's handler (on the embedded log, not even a handler run is scheduled for them).
 */
export const acceptsJobEndsFrom = (kind: JobOriginKind) => (recorded: RecordedEvent) =>
  !JOB_ENDS.has(recorded.type) || mayBeFrom(recordedOrigins(recorded.data), kind)
