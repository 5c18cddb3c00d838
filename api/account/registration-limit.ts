import { LimitExceeded } from '../../domain/errors.js'
import { makeRateWindow } from '../rate-window.js'

const HOUR_MS = 3_600_000

/**
 * POST /register per client address: every registration sends a mail, so an unthrottled one lets anybody mail
 * anybody (and tries addresses as fast as it likes). Every attempt counts, accepted or not, in a fixed one-hour window
 * read on the process's Clock; like the login limit, each API process counts on its own and a restart forgets.
 */
export const makeRegistrationLimit = (perHour: number) => {
  const window = makeRateWindow(HOUR_MS)
  /** Counts an attempt from `address` at `at` (ms); answers the error to refuse it with when it is over the limit. */
  return (address: string, at: number): LimitExceeded | null => {
    if (window.hit(address, at) < perHour) return null
    const resetAt = window.windowEnd(at)
    return new LimitExceeded({
      code: 'too_many_registrations', message: 'too many registrations from this address; retry later', limit: perHour, remaining: 0,
      resetAt, retryAfterSeconds: Math.max(1, Math.ceil((resetAt - at) / 1000)),
    })
  }
}

export type RegistrationLimit = ReturnType<typeof makeRegistrationLimit>
