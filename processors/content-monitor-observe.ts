import type { RunResult } from '../domain/content-monitor/decider.js'
import type { Rule } from '../domain/content-monitor/events.js'
import { DETECTION_DEADLINE_MS, offThread } from '../fetchers/workers/index.js'

export interface AnsweredPage {
  readonly body: string
  readonly statusCode: number | null
  readonly contentLength: number
  readonly capturedAt: string
}

/**
 * A content-monitor run's observe step (normalizing the answer, its fingerprint, the rule's needle) in the CPU pool,
 * in the organization's lane, with detection's hard deadline: a page that takes longer fails the run with
 * `extraction_timeout` (a worker that dies, at its memory cap, with `extraction_failed`), as a job's extraction
 * would (docs/limits.md); the main thread never normalizes a customer's page.
 */
export const observeOffThread = async (orgId: string, page: AnsweredPage, rule: Rule, deadlineMs = DETECTION_DEADLINE_MS): Promise<RunResult> => {
  const observed = await offThread(orgId, 'observe', { ...page, rule }, deadlineMs)
  if (observed.ok) return { _tag: 'Observed', ...observed.value }
  const timedOut = observed.reason === 'timeout'
  return {
    _tag: 'Failed', error_code: timedOut ? 'extraction_timeout' : 'extraction_failed', status_code: page.statusCode,
    error_message: timedOut ? `reading the page took longer than ${deadlineMs} ms` : `reading the page failed: ${observed.message}`,
  }
}
