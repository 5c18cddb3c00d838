/**
 * Response serializers and parameter validators compiled on a route's first use instead of at start-up. The API has
 * a few hundred route and status pairs, and compiling them all is most of a start's CPU (docs/performance.md), which
 * every process that starts the API would pay though it answers few of them; the first request of a route pays its own.
 */
import { SerializerSelector, type SerializerFactory, type Serializer } from '@fastify/fast-json-stringify-compiler'
import type { ValidateFunction } from 'ajv'

/** fastify's own serializer factory (fast-json-stringify), each serializer built when first called. */
export const lazySerializers: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options)
  return (route) => {
    let serialize: Serializer | undefined
    return (document) => (serialize ??= compile(route))(document)
  }
}

/** A validator compiled when first called; ajv reports a call's errors on the function, so they are handed on. */
export const lazyValidator = (compile: () => ValidateFunction): ((data: unknown) => boolean) & { errors?: ValidateFunction['errors'] } => {
  let validate: ValidateFunction | undefined
  const run = (data: unknown) => {
    validate ??= compile()
    const valid = validate(data) as boolean
    run.errors = validate.errors
    return valid
  }
  run.errors = undefined as ValidateFunction['errors']
  return run
}
