import { LimitExceeded } from '../../domain/errors.js'
import { afterFailure, NO_FAILURES, waitBeforeAttempt, type AccountFailures, type LoginBackoffPolicy } from '../../domain/user/login-backoff.js'

/** Addresses remembered at most; beyond, the least recently failed are forgotten first. Bounds memory under spraying. */
const MAX_TRACKED_ACCOUNTS = 100_000

/**
 * The per-account login backoff (policy in domain/user/login-backoff.ts), kept in this API process like the
 * per-address limit of @fastify/rate-limit: each API process counts on its own, and a restart forgets. Keyed by
 * the address's hash, known or not, so a 429 tells nothing about which addresses are registered. `now` reads the
 * process's Clock (ms), so a test on a manual clock sees a wait end.
 *
 * An attempt counts as failed from the moment it starts and is taken back only by a success, so concurrent
 * attempts cannot all slip through while their passwords are being checked.
 */
export const makeLoginBackoff = (policy: LoginBackoffPolicy, now: () => number) => {
  const accounts = new Map<string, AccountFailures>()
  return {
    /** Records the attempt; answers the error to refuse it with when the account must still wait. */
    begin: (account: string): LimitExceeded | null => {
      const at = now()
      const state = accounts.get(account) ?? NO_FAILURES
      const wait = waitBeforeAttempt(state, at)
      if (wait > 0) {
        return new LimitExceeded({
          code: 'too_many_failed_logins', message: 'too many failed logins for this account; retry later', limit: policy.freeFailures, remaining: 0,
          resetAt: state.blockedUntil, retryAfterSeconds: Math.ceil(wait / 1000),
        })
      }
      // Re-inserted so the map's order is least recently failed first.
      accounts.delete(account)
      accounts.set(account, afterFailure(state, at, policy))
      if (accounts.size > MAX_TRACKED_ACCOUNTS) accounts.delete(accounts.keys().next().value!)
      return null
    },
    succeeded: (account: string): void => { accounts.delete(account) },
  }
}

export type LoginBackoff = ReturnType<typeof makeLoginBackoff>
