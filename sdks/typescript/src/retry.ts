/** How requests answered 429 or 503 are tried again. */
export interface RetryOptions {
  /** Attempts in all, the first included (default 3; 1 turns retries off). */
  readonly maxAttempts?: number
  /** Wait before the second attempt when the answer has no `Retry-After`, doubled for each later one (default 500 ms). */
  readonly baseDelayMs?: number
  /** The longest wait; an answer whose `Retry-After` asks for more is not retried but thrown (default 60 s). */
  readonly maxDelayMs?: number
}

export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503])

export const retryDefaults = (options: RetryOptions = {}): Required<RetryOptions> => ({
  maxAttempts: Math.max(1, options.maxAttempts ?? 3),
  baseDelayMs: options.baseDelayMs ?? 500,
  maxDelayMs: options.maxDelayMs ?? 60_000,
})

/** `Retry-After` in seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export const parseRetryAfter = (value: string | null, now = Date.now()): number | null => {
  if (value === null || value.trim() === '') return null
  if (/^\d+$/.test(value.trim())) return Number(value.trim())
  const date = Date.parse(value)
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000))
}

/**
 * The wait before attempt `attempt + 1` (attempt counts from 1), or null to stop: attempts are used up, or the
 * service asked for a wait longer than allowed. `Retry-After` is honoured as given; without it the wait backs off
 * exponentially with jitter (between half and all of the doubled delay) so clients do not retry in step.
 */
export const nextDelayMs = (options: Required<RetryOptions>, attempt: number, retryAfterSeconds: number | null, random = Math.random): number | null => {
  if (attempt >= options.maxAttempts) return null
  if (retryAfterSeconds !== null) {
    const asked = retryAfterSeconds * 1000
    return asked > options.maxDelayMs ? null : asked
  }
  const backoff = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1))
  return Math.round(backoff / 2 + (random() * backoff) / 2)
}
