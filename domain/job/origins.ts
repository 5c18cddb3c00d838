import { monitorOfTags } from '../content-monitor/run-job.js'
import { monitorRunOf } from '../monitor/run-outcome.js'
import { isScrapeJob } from '../scrape/job-origin.js'
import type { JobOrigin } from './events.js'
import type { JobSpec } from './spec.js'

/** What a job's terminal event says it was submitted for (see JobOrigin), from the job's spec. */
export const jobOrigins = (spec: JobSpec): JobOrigin[] => [
  ...(monitorRunOf(spec.idempotency_token) !== null ? ['monitor_run' as const] : []),
  ...(monitorOfTags(spec.tags) !== null ? ['content_monitor_run' as const] : []),
  ...(isScrapeJob(spec) ? ['scrape' as const] : []),
]

/** Whether a job ended by this terminal event may be one submitted for `origin`: unknown (an older event) counts as may. */
export const mayBeFrom = (end: { readonly origins?: readonly JobOrigin[] | undefined }, origin: JobOrigin) =>
  end.origins === undefined || end.origins.includes(origin)
