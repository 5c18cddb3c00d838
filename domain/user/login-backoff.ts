/**
 * Per-account login backoff: after `freeFailures` consecutive failed logins for one address, each further attempt
 * must wait `baseDelayMs`, doubled with every further failure up to `maxDelayMs`, whatever the client address. A
 * successful login starts over; so does an address that has not failed for `forgetAfterMs`.
 */
export interface LoginBackoffPolicy {
  readonly freeFailures: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
  readonly forgetAfterMs: number
}

export const DEFAULT_LOGIN_BACKOFF: Omit<LoginBackoffPolicy, 'freeFailures'> = {
  baseDelayMs: 30_000,
  maxDelayMs: 15 * 60_000,
  forgetAfterMs: 24 * 60 * 60_000,
}

export interface AccountFailures {
  /** Consecutive failed (or still unanswered) attempts. */
  readonly failures: number
  readonly lastFailureAt: number
  /** Epoch ms before which every attempt is refused; 0 when not blocked. */
  readonly blockedUntil: number
}

export const NO_FAILURES: AccountFailures = { failures: 0, lastFailureAt: 0, blockedUntil: 0 }

/** Milliseconds an attempt at `now` must still wait (0: it may go ahead). */
export const waitBeforeAttempt = (state: AccountFailures, now: number): number => Math.max(0, state.blockedUntil - now)

/** The state after one more failure at `now`: the failure that reaches `freeFailures` starts the first wait. */
export const afterFailure = (state: AccountFailures, now: number, policy: LoginBackoffPolicy): AccountFailures => {
  const failures = (now - state.lastFailureAt > policy.forgetAfterMs ? 0 : state.failures) + 1
  const beyond = failures - policy.freeFailures
  const delay = beyond < 0 ? 0 : Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(beyond, 30))
  return { failures, lastFailureAt: now, blockedUntil: delay > 0 ? now + delay : 0 }
}
