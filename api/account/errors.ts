import { Data } from 'effect'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'

/** A request the account API cannot read (answered 400 `{error: code}`, as SPEC 7.3 shows for `missing_token`). */
export class BadRequest extends Data.TaggedError('BadRequest')<{ readonly code: string }> {}

interface Tagged { readonly _tag: string; readonly [k: string]: unknown }
const isTagged = (e: unknown): e is Tagged => typeof e === 'object' && e !== null && typeof (e as Tagged)._tag === 'string'

/**
 * The account API's one mapping of errors to HTTP (the v1 API has its own in api/errors.ts). Bodies follow SPEC 7.3:
 * `{detail: code}`, plus `errors: [{field, code, message}]` on 422 validation failures; a missing or invalid
 * session answers `{authenticated: false}`; an unreadable request answers 400 `{error: code}`.
 */
export const sendAccountError = (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
  if (isTagged(error)) {
    switch (error._tag) {
      case 'BadRequest':
        return reply.code(400).send({ error: error.code })
      case 'ValidationFailed': {
        // A limit reached is its own detail (SPEC 7.3: monitor_limit_reached); field problems are validation_error.
        const errors = error.errors as readonly { readonly code: string }[]
        const limit = errors.find((e) => e.code === 'monitor_limit_reached')
        return reply.code(422).send({ detail: limit ? limit.code : 'validation_error', errors })
      }
      case 'InvalidVerificationToken':
        return reply.code(422).send({ detail: 'invalid_or_expired_token' })
      case 'StateConflict':
        return reply.code(409).send({ detail: error.code })
      case 'Unauthenticated':
        return error.code === 'invalid_credentials'
          ? reply.code(401).send({ detail: 'invalid_credentials' })
          : reply.code(401).send({ authenticated: false })
      case 'Forbidden':
        return reply.code(403).send({ detail: error.code })
      case 'NotFound':
        return reply.code(404).send({ detail: `${error.resource}_not_found` })
      case 'LimitExceeded':
      case 'AdmissionRejected':
        return reply.code(429)
          .header('X-RateLimit-Limit', String(error.limit))
          .header('X-RateLimit-Remaining', String(error.remaining))
          .header('X-RateLimit-Reset', String(Math.ceil((error.resetAt as number) / 1000)))
          .header('Retry-After', String(error.retryAfterSeconds))
          .send({ detail: error.code })
      case 'StoreUnavailable':
      case 'WrongExpectedRevision':
      case 'MailUnavailable':
        request.log.error({ err: error }, 'account API dependency unavailable')
        return reply.code(503).header('Retry-After', '1').send({ detail: 'service_unavailable' })
    }
  }
  const fastifyError = error as FastifyError
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(413).send({ detail: 'payload_too_large' })
  if (fastifyError.code?.startsWith('FST_ERR_CTP_') || (fastifyError.statusCode === 400 && !fastifyError.validation)) {
    return reply.code(400).send({ error: 'malformed_body' })
  }
  if (fastifyError.validation) {
    const errors = fastifyError.validation.map((v) => {
      const field = (v.instancePath || `/${(v.params as { missingProperty?: string }).missingProperty ?? ''}`).replace(/^\//, '').replace(/\//g, '.')
      return { field, code: `invalid_${field.replace(/\W+/g, '_')}`, message: `${field} ${v.message ?? 'is invalid'}` }
    })
    return reply.code(422).send({ detail: 'validation_error', errors })
  }
  if (fastifyError.statusCode && fastifyError.statusCode < 500) return reply.code(fastifyError.statusCode).send({ detail: fastifyError.code ?? 'bad_request' })
  request.log.error({ err: error }, 'unhandled error')
  return reply.code(500).send({ detail: 'internal_error' })
}
