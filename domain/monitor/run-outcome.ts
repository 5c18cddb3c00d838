import type { Manifest } from '../job/events.js'
import type { CompletionStatus } from './events.js'

/** Target answers that deny rather than serve: the page did not deliver. */
const BLOCKING_STATUSES = new Set([403, 429])

const headerOf = (manifest: Readonly<Record<string, unknown>> | undefined, name: string): string | null => {
  const headers = manifest?.response_headers
  if (typeof headers !== 'object' || headers === null) return null
  const value = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1]
  return typeof value === 'string' ? value : null
}

/**
 * What a monitor run's finished job means (SPEC 2.6): `blocked` when the target denied or challenged (HTTP 403 or
 * 429, a challenge answer, `stealth_blocked`), `failed` for any other failure, `delivered` when content came back.
 * The detail names the signal and status code. The credit ledger charges a monitor run's job only when delivered.
 */
export type RunEnd =
  | { readonly _tag: 'JobSucceeded'; readonly manifest: Manifest }
  | { readonly _tag: 'JobFailed'; readonly failure_reason: string; readonly message: string; readonly manifest?: Manifest | undefined }

export const runOutcome = (event: RunEnd): { readonly status: Exclude<CompletionStatus, 'error'>; readonly detail: string } => {
  const status = typeof event.manifest?.http_status === 'number' ? event.manifest.http_status : null
  const code = status === null ? 'no response' : `HTTP ${status}`
  if (event._tag === 'JobFailed') {
    if (event.failure_reason === 'stealth_blocked') return { status: 'blocked', detail: `stealth_blocked (${code}): ${event.message}` }
    return { status: 'failed', detail: `${event.failure_reason} (${code}): ${event.message}` }
  }
  if (headerOf(event.manifest, 'cf-mitigated') === 'challenge') return { status: 'blocked', detail: `challenge (${code}, cf-mitigated: challenge)` }
  if (status !== null && BLOCKING_STATUSES.has(status)) return { status: 'blocked', detail: `${status === 429 ? 'rate_limited' : 'forbidden'} (${code})` }
  if (status !== null && status >= 400) return { status: 'failed', detail: `http_error (${code})` }
  return { status: 'delivered', detail: `content delivered (${code})` }
}
