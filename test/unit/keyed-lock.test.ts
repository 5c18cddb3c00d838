import t from 'tap'
import { Effect, Fiber } from 'effect'
import { makeKeyedLock } from '../../infra/usage/keyed-lock.js'

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms))

t.test('one holder per key at a time, in turn; other keys do not wait', async (t) => {
  const serialized = makeKeyedLock()
  const log: string[] = []
  const gates = new Map<string, () => void>()
  const held = (name: string) => Effect.gen(function* () {
    log.push(`${name} in`)
    yield* Effect.async<void>((resume) => { gates.set(name, () => resume(Effect.void)) })
    log.push(`${name} out`)
  })
  const a1 = Effect.runFork(serialized('a', held('a1')))
  const a2 = Effect.runFork(serialized('a', held('a2')))
  const b1 = Effect.runFork(serialized('b', held('b1')))
  await tick()
  t.same(log, ['a1 in', 'b1 in'], 'the second holder of a waits; b does not')
  gates.get('a1')!()
  await Effect.runPromise(Fiber.join(a1))
  await tick()
  t.same(log, ['a1 in', 'b1 in', 'a1 out', 'a2 in'], 'a2 runs once a1 is out')
  gates.get('a2')!()
  gates.get('b1')!()
  await Effect.runPromise(Effect.all([Fiber.join(a2), Fiber.join(b1)]))
})

t.test('a free lock is taken without suspending, and a failure or an interrupted waiter releases or leaves it', async (t) => {
  const serialized = makeKeyedLock()
  t.equal(Effect.runSync(serialized('k', Effect.succeed(1))), 1, 'runs synchronously when nobody holds the key')
  const failed = await Effect.runPromiseExit(serialized('k', Effect.fail('boom')))
  t.equal(failed._tag, 'Failure')
  t.equal(Effect.runSync(serialized('k', Effect.succeed(2))), 2, 'a failed holder released the key')
  let open = () => {}
  const holder = Effect.runFork(serialized('k', Effect.async<void>((resume) => { open = () => resume(Effect.void) })))
  const waiter = Effect.runFork(serialized('k', Effect.succeed('never')))
  await tick()
  await Effect.runPromise(Fiber.interrupt(waiter))
  open()
  await Effect.runPromise(Fiber.join(holder))
  t.equal(Effect.runSync(serialized('k', Effect.succeed(3))), 3, 'the interrupted waiter does not keep the key')
})
