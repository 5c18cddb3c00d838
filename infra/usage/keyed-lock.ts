import { Effect } from 'effect'

/**
 * Runs effects one at a time per key within this process; a key's lock is forgotten when nobody holds or awaits it.
 * A free lock is taken in the same step (an Effect semaphore always suspends the fiber to take a permit, which costs
 * a turn of the scheduler even when nobody else wants it). A release wakes every waiter of its key: each tries
 * again, and the first to run takes it, so a waiter interrupted between its wake and its try cannot strand the lock.
 */
export const makeKeyedLock = () => {
  /** The keys held, each with its waiters. */
  const held = new Map<string, Set<() => void>>()

  /** Takes the key's lock, waiting (interruptibly, through `restore`) while another holds it. */
  const take = (key: string, restore: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>): Effect.Effect<void> =>
    Effect.suspend(() => {
      const waiters = held.get(key)
      if (waiters === undefined) {
        held.set(key, new Set())
        return Effect.void
      }
      const turn = Effect.async<void>((resume) => {
        const wake = () => resume(Effect.void)
        waiters.add(wake)
        return Effect.sync(() => { waiters.delete(wake) })
      })
      return Effect.zipRight(restore(turn), take(key, restore))
    })

  const release = (key: string) => Effect.sync(() => {
    const waiters = held.get(key)
    held.delete(key)
    for (const wake of waiters ?? []) wake()
  })

  const serialized = <A, E, R>(key: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.uninterruptibleMask((restore) => Effect.zipRight(take(key, restore), Effect.ensuring(restore(effect), release(key))))
  /** Whether an effect holds the key's lock now. */
  const isHeld = (key: string) => held.has(key)
  return Object.assign(serialized, { isHeld })
}
