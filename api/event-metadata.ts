import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyRequest } from 'fastify'

export const CORRELATION_HEADER = 'x-correlation-id'
const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/

/**
 * The request id, which is also the correlation id of every event the request causes: the caller's
 * `X-Correlation-Id` when it is a plain token (letters, digits, `. _ : -`, at most 128), else a new UUID.
 */
export const correlationIdOf = (request: IncomingMessage): string => {
  const given = request.headers[CORRELATION_HEADER]
  return typeof given === 'string' && CORRELATION_ID.test(given) ? given : randomUUID()
}

/** Metadata of the events a request causes, on behalf of `actor` (`api_key:<id>`, `user:<id>`, `anonymous`). */
export const requestMetadata = (request: FastifyRequest, actor: string) =>
  ({ correlation_id: request.id, causation_id: null, actor })
