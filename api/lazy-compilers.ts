/**
 * Response serializers and parameter validators compiled on a route's first use instead of at start-up. The API has
 * a few hundred route and status pairs, and compiling them all is most of a start's CPU (docs/performance.md), which
 * every process that starts the API would pay though it answers few of them. A long-running service compiles the rest
 * in the event loop's idle turns after it starts (`compileWhileIdle`), one per turn, so no request waits for a compile
 * (one can take tens of milliseconds: fast-json-stringify checks the shared schemas again for each).
 */
import { SerializerSelector, type SerializerFactory, type Serializer } from '@fastify/fast-json-stringify-compiler'
import type { ValidateFunction } from 'ajv'

export type LazyValidator = ((data: unknown) => boolean) & { errors?: ValidateFunction['errors'] }

export interface LazyCompilers {
  /** fastify's own serializer factory (fast-json-stringify), each serializer built when first called. */
  readonly serializers: SerializerFactory
  /** A validator compiled when first called; ajv reports a call's errors on the function, so they are handed on. */
  readonly validator: (compile: () => ValidateFunction) => LazyValidator
  /** Compiles what no request has yet, one per turn of the event loop; answers a function that stops it. */
  readonly compileWhileIdle: () => () => void
}

export const makeLazyCompilers = (): LazyCompilers => {
  const uncompiled = new Set<() => unknown>()
  /** `compile` run once, on first use or when the idle compiler gets to it. */
  const once = <T>(compile: () => T): (() => T) => {
    let made: { readonly value: T } | undefined
    const ensure = () => {
      if (made === undefined) {
        made = { value: compile() }
        uncompiled.delete(ensure)
      }
      return made.value
    }
    uncompiled.add(ensure)
    return ensure
  }
  return {
    serializers: (externalSchemas, options) => {
      const compile = SerializerSelector()(externalSchemas, options)
      return (route) => {
        const serializer: () => Serializer = once(() => compile(route))
        return (document) => serializer()(document)
      }
    },
    validator: (compile) => {
      const validate = once(compile)
      const run: LazyValidator = (data: unknown) => {
        const compiled = validate()
        const valid = compiled(data) as boolean
        run.errors = compiled.errors
        return valid
      }
      run.errors = undefined
      return run
    },
    compileWhileIdle: () => {
      let stopped = false
      const step = () => {
        const next = uncompiled.values().next()
        if (stopped || next.done) return
        next.value()
        setImmediate(step).unref()
      }
      setImmediate(step).unref()
      return () => { stopped = true }
    },
  }
}
