import type { Effect } from 'effect'

/** Runs an Effect on the process's ManagedRuntime; processors hold one so handlers can be plain async functions. */
export type Run<R> = <A, E>(effect: Effect.Effect<A, E, R>) => Promise<A>
