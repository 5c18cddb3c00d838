import type { FastifyReply, FastifyRequest } from 'fastify'
import { Forbidden, Unauthenticated } from '../domain/errors.js'
import { authenticateApiKey, type ApiPrincipal } from '../projections/key-queries.js'
import type { ApiContext } from './context.js'

declare module 'fastify' {
  interface FastifyRequest {
    principal?: ApiPrincipal
  }
}

/** `X-API-Key` authentication plus the scope the route needs: 401 for a bad key, 403 for a missing scope. */
export const requireApiKey = (ctx: ApiContext, scope: string) => async (request: FastifyRequest, _reply: FastifyReply) => {
  const header = request.headers['x-api-key']
  const secret = Array.isArray(header) ? header[0] : header
  if (!secret) throw new Unauthenticated({ code: 'missing_api_key', message: 'send your API key in the X-API-Key header' })
  const principal = await ctx.run(authenticateApiKey(secret, new Date()))
  if (!principal.scopes.includes(scope)) {
    throw new Forbidden({ code: 'missing_scope', message: `this API key lacks the scope ${scope}` })
  }
  request.principal = principal
}

export const principalOf = (request: FastifyRequest): ApiPrincipal => {
  if (!request.principal) throw new Unauthenticated({ code: 'missing_api_key', message: 'authentication required' })
  return request.principal
}
