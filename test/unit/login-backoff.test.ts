import t from 'tap'
import { makeLoginBackoff } from '../../api/account/login-backoff.js'
import { DEFAULT_LOGIN_BACKOFF } from '../../domain/user/login-backoff.js'

const policy = { ...DEFAULT_LOGIN_BACKOFF, freeFailures: 5 }
/** A clock the test moves by hand. */
const clock = () => {
  let now = Date.parse('2026-01-01T00:00:00Z')
  return { now: () => now, advance: (ms: number) => { now += ms } }
}
const failTimes = (backoff: ReturnType<typeof makeLoginBackoff>, account: string, times: number) => {
  for (let i = 0; i < times; i++) if (backoff.begin(account) !== null) throw new Error(`attempt ${i + 1} was refused`)
}

t.test('after five failures the account waits 30 s, doubled with each further failure up to 15 minutes', async (t) => {
  const time = clock()
  const backoff = makeLoginBackoff(policy, time.now)
  failTimes(backoff, 'a', 5)
  const refused = backoff.begin('a')
  t.match(refused, { _tag: 'LimitExceeded', code: 'too_many_failed_logins', retryAfterSeconds: 30, limit: 5, remaining: 0, resetAt: time.now() + 30_000 })
  time.advance(29_999)
  t.equal(backoff.begin('a')?.retryAfterSeconds, 1, 'still refused a millisecond before the wait ends')
  const waits: number[] = []
  for (let i = 0; i < 8; i++) {
    time.advance(waits.at(-1) ?? 1)
    t.equal(backoff.begin('a'), null, 'the attempt after the wait goes ahead (and fails)')
    waits.push(backoff.begin('a')!.retryAfterSeconds * 1000)
  }
  t.same(waits, [60_000, 120_000, 240_000, 480_000, 900_000, 900_000, 900_000, 900_000])
})

t.test('a success starts over; other accounts are unaffected; old failures are forgotten', async (t) => {
  const time = clock()
  const backoff = makeLoginBackoff(policy, time.now)
  failTimes(backoff, 'a', 4)
  backoff.succeeded('a')
  failTimes(backoff, 'a', 4)
  t.equal(backoff.begin('a'), null, 'the fifth failure after a success is still free')
  t.not(backoff.begin('a'), null, 'then the wait starts')
  t.equal(backoff.begin('b'), null, 'another account is not affected')

  failTimes(backoff, 'c', 4)
  time.advance(DEFAULT_LOGIN_BACKOFF.forgetAfterMs + 1)
  failTimes(backoff, 'c', 4)
  t.equal(backoff.begin('c'), null, 'failures older than a day do not count')
})

t.test('concurrent attempts count before their passwords are checked', async (t) => {
  const backoff = makeLoginBackoff(policy, clock().now)
  const outcomes = Array.from({ length: 20 }, () => backoff.begin('a'))
  t.equal(outcomes.filter((o) => o === null).length, 5, 'only five of twenty simultaneous attempts go ahead')
})
