import { Effect } from 'effect'

/** Runs effects one at a time per key within this process; a key's lock is forgotten when nobody holds or awaits it. */
export const makeKeyedLock = () => {
  const locks = new Map<string, { readonly semaphore: Effect.Semaphore; users: number }>()
  return <A, E, R>(key: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      const lock = locks.get(key) ?? { semaphore: Effect.unsafeMakeSemaphore(1), users: 0 }
      locks.set(key, lock)
      lock.users += 1
      return lock.semaphore.withPermits(1)(effect).pipe(Effect.ensuring(Effect.sync(() => {
        lock.users -= 1
        if (lock.users === 0) locks.delete(key)
      })))
    })
}
