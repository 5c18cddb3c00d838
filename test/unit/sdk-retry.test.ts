import t from 'tap'
import { nextDelayMs, parseRetryAfter, retryDefaults } from '../../sdks/typescript/src/retry.js'

// The TypeScript SDK's retry schedule (sdks/typescript/src/retry.ts); the retries themselves are tested against the
// running service in test/sdk/typescript-sdk.test.ts.

t.test('Retry-After is delta-seconds or an HTTP date', async (t) => {
  const now = Date.parse('2026-05-01T10:00:00Z')
  t.equal(parseRetryAfter('42', now), 42)
  t.equal(parseRetryAfter('Fri, 01 May 2026 10:01:30 GMT', now), 90)
  t.equal(parseRetryAfter('Fri, 01 May 2026 09:00:00 GMT', now), 0, 'a date past is no wait')
  t.equal(parseRetryAfter(null, now), null)
  t.equal(parseRetryAfter('soon', now), null)
})

t.test('the wait honours Retry-After, backs off without it, and stops', async (t) => {
  const options = retryDefaults({ maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 10_000 })
  t.equal(nextDelayMs(options, 1, 3), 3000, 'Retry-After as given')
  t.equal(nextDelayMs(options, 1, 11), null, 'more than maxDelayMs: thrown, not waited')
  t.equal(nextDelayMs(options, 4, 1), null, 'attempts used up')
  t.equal(nextDelayMs(options, 1, null, () => 0), 50, 'half the first delay at the least')
  t.equal(nextDelayMs(options, 3, null, () => 1), 400, 'doubled per attempt')
  t.equal(nextDelayMs(retryDefaults({ maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 1000 }), 8, null, () => 1), 1000, 'capped')
  t.equal(retryDefaults({ maxAttempts: 0 }).maxAttempts, 1, 'at least one attempt')
})
