import t from 'tap'
import type { ValidateFunction } from 'ajv'
import { makeLazyCompilers } from '../../api/lazy-compilers.js'

const turns = (n: number) => new Promise<void>((resolve) => {
  const next = (left: number) => (left === 0 ? resolve() : setImmediate(() => next(left - 1)))
  next(n)
})
const counting = () => {
  let compiled = 0
  const compile = () => { compiled += 1; return Object.assign((data: unknown) => data === 'ok', { errors: null }) as unknown as ValidateFunction }
  return { compile, compiled: () => compiled }
}

t.test('a validator is compiled on its first use, once', async (t) => {
  const compilers = makeLazyCompilers()
  const { compile, compiled } = counting()
  const validate = compilers.validator(compile)
  t.equal(compiled(), 0, 'nothing compiled before use')
  t.equal(validate('ok'), true)
  t.equal(validate('no'), false)
  t.equal(compiled(), 1)
})

t.test('compiling while idle makes every unused one, one per turn, and stops when asked', async (t) => {
  const compilers = makeLazyCompilers()
  const all = Array.from({ length: 5 }, counting)
  const validators = all.map(({ compile }) => compilers.validator(compile))
  validators[0]!('ok')
  const stop = compilers.compileWhileIdle()
  await turns(2)
  const early = all.filter((c) => c.compiled() === 1).length
  t.ok(early < 5, `not all at once (${early} of 5 after two turns)`)
  await turns(10)
  t.same(all.map((c) => c.compiled()), [1, 1, 1, 1, 1], 'each compiled exactly once, the used one not again')
  stop()

  const later = makeLazyCompilers()
  const idle = counting()
  later.validator(idle.compile)
  later.compileWhileIdle()()
  await turns(5)
  t.equal(idle.compiled(), 0, 'stopped before its first turn: nothing compiled')
})
