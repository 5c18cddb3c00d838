import type { JobOrigin, JobOriginKind } from './origin.js'

/** What a job's terminal event says it was submitted for: the kind of its recorded origin. */
export const jobOrigins = (origin: JobOrigin): JobOriginKind[] => [origin._tag]

/** Whether a job ended by this terminal event may be one of origin `kind`: unknown (an older event) counts as may. */
export const mayBeFrom = (end: { readonly origins?: readonly string[] | undefined }, kind: JobOriginKind) =>
  end.origins === undefined || end.origins.includes(kind)
