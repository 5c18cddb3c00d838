import { Deferred, Effect, FiberId } from 'effect'

/**
 * Callers asking for a key while a run of it is in flight join that run instead of starting another: its answer is
 * as fresh as a new one, give or take that run's own duration. The run is detached from its first caller, so that
 * caller's interruption does not fail the others. Nothing is kept once a run ends.
 */
export const makeSingleFlight = <A, E>() => {
  const inFlight = new Map<string, Deferred.Deferred<A, E>>()
  return (key: string, run: Effect.Effect<A, E>): Effect.Effect<A, E> => Effect.suspend(() => {
    const joined = inFlight.get(key)
    if (joined) return Deferred.await(joined)
    const deferred = Deferred.unsafeMake<A, E>(FiberId.none)
    inFlight.set(key, deferred)
    const settle = Effect.flatMap(Effect.exit(run), (exit) => Effect.suspend(() => {
      inFlight.delete(key)
      return Deferred.done(deferred, exit)
    }))
    return Effect.zipRight(Effect.forkDaemon(settle), Deferred.await(deferred))
  })
}
