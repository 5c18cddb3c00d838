import type { FastifyReply, FastifyRequest } from 'fastify'
import { Effect } from 'effect'
import { currentTime } from '../commands/clock.js'
import { Forbidden, LimitExceeded, Unauthenticated } from '../domain/errors.js'
import { ipAllowed } from '../domain/ip-allowlist.js'
import { rateBreach, retryAfterSeconds, type LimitBreach } from '../domain/limits.js'
import { authenticateApiKey, type ApiPrincipal } from '../projections/key-queries.js'
import type { RouteContext } from './context.js'

declare module 'fastify' {
  interface FastifyRequest {
    principal?: ApiPrincipal
  }
}

export const limitExceeded = (breach: LimitBreach, now: number) => new LimitExceeded({
  code: breach.code, message: breach.message, limit: breach.limit, remaining: breach.remaining,
  resetAt: breach.resetAt, retryAfterSeconds: retryAfterSeconds(breach, now),
})

/**
 * Over a limit, a key in `block` mode is answered 429; in `observe` mode the request passes, and the breach is
 * logged and reported in `X-RateLimit-Observed`.
 */
export const enforce = (request: FastifyRequest, reply: FastifyReply, principal: ApiPrincipal, breaches: readonly LimitBreach[], now: number) => {
  if (breaches.length > 0 && principal.limits.enforcement_mode === 'block') throw limitExceeded(breaches[0]!, now)
  observe(request, reply, principal, breaches)
}

/** Breaches a key in `observe` mode let pass: logged, and named in `X-RateLimit-Observed`. */
export const observe = (request: FastifyRequest, reply: FastifyReply, principal: ApiPrincipal, breaches: readonly { readonly code: string }[]) => {
  if (breaches.length === 0) return
  request.log.warn({ key_id: principal.key_id, org_id: principal.org_id, limits: breaches.map((b) => b.code) }, 'limit exceeded (observe mode)')
  reply.header('X-RateLimit-Observed', breaches.map((b) => b.code).join(', '))
}

/**
 * `X-API-Key` authentication, then the checks every v1 call passes: organization and key IP allowlists (403),
 * the scope the route needs (403), and the key's requests per minute (429, or observed).
 */
export const requireApiKey = (ctx: RouteContext, scope: string) => async (request: FastifyRequest, reply: FastifyReply) => {
  const header = request.headers['x-api-key']
  const secret = Array.isArray(header) ? header[0] : header
  if (!secret) throw new Unauthenticated({ code: 'missing_api_key', message: 'send your API key in the X-API-Key header' })
  const principal = ctx.rememberedPrincipal?.(secret) ?? await ctx.run(Effect.flatMap(currentTime, (now) => authenticateApiKey(secret, now)))
  if (!ipAllowed(request.ip, principal.org_ip_allowlist) || !ipAllowed(request.ip, principal.limits.ip_allowlist)) {
    throw new Forbidden({ code: 'ip_not_allowed', message: `requests from ${request.ip} are not allowed for this key or organization` })
  }
  if (!principal.scopes.includes(scope)) {
    throw new Forbidden({ code: 'missing_scope', message: `this API key lacks the scope ${scope}` })
  }
  const now = ctx.clock.now().getTime()
  const before = ctx.rateWindow.hit(principal.key_id, now)
  reply.header('X-RateLimit-Limit', String(principal.limits.rate_limit_rpm))
  reply.header('X-RateLimit-Remaining', String(Math.max(0, principal.limits.rate_limit_rpm - before - 1)))
  reply.header('X-RateLimit-Reset', String(Math.ceil((Math.floor(now / 60_000) * 60_000 + 60_000) / 1000)))
  const breach = rateBreach(principal.limits, before, now)
  enforce(request, reply, principal, breach ? [breach] : [], now)
  request.principal = principal
}

export const principalOf = (request: FastifyRequest): ApiPrincipal => {
  if (!request.principal) throw new Unauthenticated({ code: 'missing_api_key', message: 'authentication required' })
  return request.principal
}
