import t from 'tap'
import { Effect, Fiber } from 'effect'
import { makeManualClock } from '../../infra/clock/manual.js'
import { systemClock } from '../../infra/clock/system.js'

t.test('a manual clock wakes sleepers only when time reaches their instant, in instant order', async (t) => {
  const clock = makeManualClock('2026-01-01T00:00:00Z')
  const woke: string[] = []
  const sleep = (iso: string) => Effect.runFork(clock.sleepUntil(new Date(iso)).pipe(Effect.tap(() => woke.push(iso))))
  const late = sleep('2026-01-01T00:10:00Z')
  const early = sleep('2026-01-01T00:05:00Z')
  clock.advance(4 * 60_000)
  await new Promise((resolve) => setImmediate(resolve))
  t.same(woke, [], 'nothing is due at 00:04')
  clock.set('2026-01-01T00:30:00Z')
  await Effect.runPromise(Fiber.join(late))
  await Effect.runPromise(Fiber.join(early))
  t.same(woke, ['2026-01-01T00:05:00Z', '2026-01-01T00:10:00Z'])
  t.equal(clock.now().toISOString(), '2026-01-01T00:30:00.000Z')
})

t.test('a manual clock never goes backwards, and a past instant does not sleep', async (t) => {
  const clock = makeManualClock('2026-01-01T00:00:00Z')
  clock.set('2025-12-31T00:00:00Z')
  t.equal(clock.now().toISOString(), '2026-01-01T00:00:00.000Z')
  await Effect.runPromise(clock.sleepUntil(new Date('2025-06-01T00:00:00Z')))
  t.throws(() => clock.set('not a time'))
})

t.test('an interrupted sleeper is forgotten', async (t) => {
  const clock = makeManualClock('2026-01-01T00:00:00Z')
  let woke = false
  const fiber = Effect.runFork(clock.sleepUntil(new Date('2026-01-02T00:00:00Z')).pipe(Effect.tap(() => { woke = true })))
  await Effect.runPromise(Fiber.interrupt(fiber))
  clock.advance(2 * 86_400_000)
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(woke, false)
})

t.test('the system clock sleeps until a near instant', async (t) => {
  const target = new Date(Date.now() + 30)
  await Effect.runPromise(systemClock.sleepUntil(target))
  t.ok(systemClock.now().getTime() >= target.getTime())
})
