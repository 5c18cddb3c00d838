/**
 * Job failure reasons that are the service's own fault, not the target's: a scrape ending with one answers 502
 * `gateway_error` (the pipeline failed); every other failure is the scrape's result, answered 422 with the reason as code.
 */
export const PIPELINE_FAILURES: ReadonlySet<string> = new Set(['engine_error', 'engine_unavailable', 'browser_unavailable', 'browser_crashed'])

export const SCRAPE_TIMEOUT_CODE = 'timeout'
export const GATEWAY_ERROR_CODE = 'gateway_error'

/** The errorCode a scrape reports for its job's failure reason. */
export const scrapeErrorCode = (failureReason: string) => PIPELINE_FAILURES.has(failureReason) ? GATEWAY_ERROR_CODE : failureReason
