/** Seconds after each failed attempt before the next one: 9 retries, all inside the 72-hour window. */
export const DEFAULT_RETRY_LADDER: readonly number[] = [5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 72_000]

/** Deliveries are retried for at most this long after they were scheduled (or replayed). */
export const RETRY_WINDOW_MS = 72 * 3_600_000

/** Each wait is shortened by up to this share, at random, so receivers that failed together are not retried together. */
export const JITTER_SHARE = 0.1

/** WEBHOOK_RETRY_SCHEDULE: comma-separated positive seconds; throws with the offending entry otherwise. */
export const parseRetryLadder = (raw: string): readonly number[] => {
  const entries = raw.split(',').map((entry) => entry.trim())
  const ladder = entries.map(Number)
  const bad = entries.find((entry, i) => entry === '' || !Number.isFinite(ladder[i]!) || ladder[i]! <= 0)
  if (bad !== undefined) throw new Error(`WEBHOOK_RETRY_SCHEDULE must be comma-separated positive seconds (got "${bad}")`)
  return ladder
}

/** The receiver's Retry-After (seconds or an HTTP date) in milliseconds from `now`; null when absent or unreadable. */
export const retryAfterMs = (header: string | null | undefined, now: Date): number | null => {
  if (header === null || header === undefined || header.trim() === '') return null
  const trimmed = header.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1_000
  const at = Date.parse(trimmed)
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime())
}

export interface NextAttemptInput {
  readonly ladder: readonly number[]
  /** The attempt that just failed, 1-based. */
  readonly attempt: number
  readonly now: Date
  /** When the retry window opened (the delivery was scheduled or replayed). */
  readonly windowStart: Date
  readonly retryAfterMs: number | null
  /** A number in [0, 1) (Math.random in production): how much of the jitter share is taken off. */
  readonly jitter: number
}

/**
 * When to try again after a failed attempt, or null when the ladder is used up or the next attempt would fall
 * outside the 72-hour window. A receiver's Retry-After postpones the attempt, never brings it forward.
 */
export const nextAttemptAt = (input: NextAttemptInput): Date | null => {
  const step = input.ladder[input.attempt - 1]
  if (step === undefined) return null
  const backoff = step * 1_000 * (1 - JITTER_SHARE * input.jitter)
  const wait = Math.max(backoff, input.retryAfterMs ?? 0)
  const next = input.now.getTime() + Math.round(wait)
  return next <= input.windowStart.getTime() + RETRY_WINDOW_MS ? new Date(next) : null
}
