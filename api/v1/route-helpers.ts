import { Effect, Either } from 'effect'

export const errors = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, { $ref: 'ErrorBody#' }]))
export const security = [{ apiKey: [] }]

/**
 * Waits (up to ~3 s) until a read model reflects a write just made, so a command's answer and the next query agree.
 * `ready` refines "exists" for updates. Polls quickly at first and then back off, so many waiting requests do not
 * flood a slow read-model store.
 */
export const waitForDoc = <A, E extends { readonly _tag: string }, R>(query: Effect.Effect<A, E, R>, ready: (a: A) => boolean = () => true) =>
  Effect.gen(function* () {
    for (let waited = 0, delay = 2; waited < 3000; waited += delay, delay = Math.min(100, delay * 2)) {
      const result = yield* Effect.either(query)
      if (Either.isRight(result) && ready(result.right)) return result.right
      if (Either.isLeft(result) && result.left._tag !== 'NotFound') return yield* Effect.fail(result.left)
      yield* Effect.sleep(delay)
    }
    return yield* query
  })
