import { Effect, Exit, Scope } from 'effect'

/** Acquires a scoped resource (an adapter) outside a runtime: answers it and the release of its scope. */
export const acquire = async <A, E>(resource: Effect.Effect<A, E, Scope.Scope>) => {
  const scope = Effect.runSync(Scope.make())
  const value = await Effect.runPromise(Scope.extend(resource, scope)).catch(async (error: unknown) => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    throw error
  })
  return { value, release: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}
