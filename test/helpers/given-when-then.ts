import { Either } from 'effect'
import type { Test } from 'tap'
import { fold, type Decider } from '../../domain/decider.js'

/** Either the events a command decides, or its error: a tag, or a pattern the error must match. */
export type Expected<E> = readonly E[] | string | { readonly _tag: string; readonly [field: string]: unknown }

/** given(events).when(command).then(expected, message): folds the history, decides, compares. */
export const scenario = <C, E, S, Err extends { readonly _tag: string }>(t: Test, decider: Decider<C, E, S, Err>) =>
  (history: readonly E[]) => ({
    when: (command: C) => ({
      then: (expected: Expected<E>, message: string) => {
        const result = decider.decide(command, fold(decider, history))
        if (Array.isArray(expected)) {
          if (Either.isLeft(result)) return t.fail(`${message}: expected events, got ${result.left._tag}`, { error: result.left })
          return t.same(result.right, expected, message)
        }
        if (Either.isRight(result)) return t.fail(`${message}: expected an error, got events`, { events: result.right })
        return typeof expected === 'string'
          ? t.equal(result.left._tag, expected, message)
          : t.match(result.left, expected, message)
      },
    }),
  })
