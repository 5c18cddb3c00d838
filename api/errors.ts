import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { FieldError } from '../domain/errors.js'

/** The one error body of the v1 API. `details` lists every failing field on 422 (and missing required fields on 400). */
export const ErrorBodySchema = {
  $id: 'ErrorBody',
  type: 'object',
  description: 'Every v1 error answers this shape. `error.code` is stable and machine-readable. On 422 (and on 400 for a missing required field) `error.code` is the code of the first failing field (e.g. `invalid_wait_until`, `missing_target_url`) and `details` lists every failing field (and each field at fault on 403 `key_exceeds_creator`).',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', examples: ['invalid_timeout_ms', 'missing_target_url', 'invalid_api_key', 'job_not_found', 'result_not_ready'] },
        message: { type: 'string' },
        details: {
          type: 'array',
          items: {
            type: 'object',
            required: ['field', 'code', 'message'],
            properties: {
              field: { type: 'string', description: 'Dotted path of the field, e.g. `viewport.width` or `extraction.hooks[2].selector`.' },
              code: { type: 'string', description: 'Machine-readable code naming the field, e.g. `invalid_timeout_ms`.' },
              message: { type: 'string' },
            },
          },
        },
      },
    },
  },
} as const

export const errorBody = (code: string, message: string, details?: readonly unknown[]) =>
  ({ error: { code, message, ...(details ? { details } : {}) } })

/** Field failures answer with the first failing field's code on top (a client can switch on it) and every one in `details`. */
const fieldErrorsBody = (errors: readonly FieldError[], message: string) =>
  errorBody(errors[0]?.code ?? 'validation_failed', errors.length > 0 ? `${errors[0]!.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}` : message, errors)

interface Tagged { readonly _tag: string; readonly [k: string]: unknown }
const isTagged = (e: unknown): e is Tagged => typeof e === 'object' && e !== null && typeof (e as Tagged)._tag === 'string'

/** Maps domain errors and framework errors to v1 HTTP answers; the only place that knows v1 status codes (the account API has its own bodies, mapped in api/account/errors.ts). */
export const sendError = (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
  if (isTagged(error)) {
    switch (error._tag) {
      case 'ValidationFailed':
        return reply.code(422).send(fieldErrorsBody(error.errors as readonly FieldError[], 'the request has invalid fields'))
      case 'MissingFields':
        return reply.code(400).send(fieldErrorsBody(error.errors as readonly FieldError[], 'the request lacks required fields'))
      case 'NotFound':
        return reply.code(404).send(errorBody(`${error.resource}_not_found`, `${error.resource} ${error.id} was not found`))
      case 'StateConflict':
        return reply.code(409).send(errorBody(error.code as string, error.message as string))
      case 'Forbidden':
        return reply.code(403).send(errorBody(error.code as string, error.message as string, error.details as unknown[] | undefined))
      case 'Gone':
        return reply.code(410).send(errorBody(error.code as string, error.message as string))
      case 'Unavailable':
        return reply.code(503).header('Retry-After', '30').send(errorBody(error.code as string, error.message as string))
      case 'Unauthenticated':
        return reply.code(401).send(errorBody(error.code as string, error.message as string))
      case 'LimitExceeded':
      case 'AdmissionRejected': {
        const resetSeconds = Math.ceil((error.resetAt as number) / 1000)
        return reply.code(429)
          .header('X-RateLimit-Limit', String(error.limit))
          .header('X-RateLimit-Remaining', String(error.remaining))
          .header('X-RateLimit-Reset', String(resetSeconds))
          .header('Retry-After', String(error.retryAfterSeconds))
          .send(errorBody(error.code as string, error.message as string))
      }
      case 'StoreUnavailable':
      case 'WrongExpectedRevision':
        request.log.error({ err: error }, 'store unavailable')
        return reply.code(503).header('Retry-After', '1').send(errorBody('service_unavailable', 'the service is temporarily unavailable, retry later'))
    }
  }
  const fastifyError = error as FastifyError
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(413).send(errorBody('payload_too_large', 'the request body is too large'))
  if (fastifyError.code?.startsWith('FST_ERR_CTP_') || (fastifyError.statusCode === 400 && !fastifyError.validation)) {
    return reply.code(400).send(errorBody('malformed_body', `the request body is not valid JSON: ${fastifyError.message}`))
  }
  if (fastifyError.validation) {
    const details = fastifyError.validation.map((v) => {
      const field = (v.instancePath || `/${(v.params as { missingProperty?: string }).missingProperty ?? ''}`).replace(/^\//, '').replace(/\//g, '.')
      return { field, code: `invalid_${field.replace(/\W+/g, '_')}`, message: `${field} ${v.message ?? 'is invalid'}` }
    })
    return reply.code(422).send(fieldErrorsBody(details, 'the request has invalid parameters'))
  }
  if (fastifyError.statusCode && fastifyError.statusCode < 500) {
    return reply.code(fastifyError.statusCode).send(errorBody(fastifyError.code ?? 'bad_request', fastifyError.message))
  }
  request.log.error({ err: error }, 'unhandled error')
  return reply.code(500).send(errorBody('internal_error', 'an unexpected error occurred'))
}

/** Errors fastify's router reports before a route runs: a malformed URL (400). */
export const sendFrameworkError = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
  if (error.code === 'FST_ERR_BAD_URL') return reply.code(400).send(errorBody('malformed_url', 'the URL is not valid'))
  return sendError(error, request, reply)
}

/** Errors Node reports before a request reaches fastify: a stalled client (408), oversized headers (431), malformed HTTP (400). */
const clientErrorAnswer = (code: string | undefined): [number, string, string] => {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'request_timeout', 'the request was not received in time']
  if (code === 'HPE_HEADER_OVERFLOW') return [431, 'headers_too_large', 'the request headers are too large']
  return [400, 'malformed_request', 'the request is not valid HTTP']
}

/** fastify's clientErrorHandler: answers in the error body shape when nothing was sent yet, then closes the socket. */
export function sendClientError (error: NodeJS.ErrnoException, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (socket.writable && !inFlight?.headersSent) {
    const [status, code, message] = clientErrorAnswer(error.code)
    const body = JSON.stringify(errorBody(code, message))
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
  }
  socket.destroy()
}
