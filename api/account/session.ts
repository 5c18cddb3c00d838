import type {} from '@fastify/cookie'
import type {} from '@fastify/jwt'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Effect } from 'effect'
import { Unauthenticated } from '../../domain/errors.js'
import { currentTime } from '../../commands/clock.js'
import { waitForPosition } from '../../projections/read-your-writes.js'
import { getUser, type UserView } from '../../projections/user-queries.js'
import { USERS } from '../../projections/users.js'
import { refuseUnverified } from '../../domain/user/work-permission.js'
import type { AccountContext } from './context.js'

/**
 * Session cookie set by POST /login: a signed (HMAC) cookie holding an HS256 JWT of the user, `HttpOnly`,
 * `SameSite=Lax`, `Path=/`, `Max-Age` SESSION_TTL_SECONDS, and `Secure` when PUBLIC_BASE_URL is https.
 */
export const SESSION_COOKIE = 'sw_session'

/** `use` keeps the two credentials apart: a bearer token is not a session cookie, and the reverse. */
type TokenUse = 'access' | 'session'
interface AccountClaims { readonly sub: string; readonly use: TokenUse }

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: AccountClaims
    user: AccountClaims
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    accountUser?: UserView
  }
}

const notAuthenticated = () => new Unauthenticated({ code: 'not_authenticated', message: 'send a bearer token or the session cookie' })

export const makeSessions = (app: FastifyInstance, account: AccountContext) => {
  const { accessTokenTtlSeconds, sessionTtlSeconds, secureCookies } = account.settings
  const cookieOptions = { path: '/', httpOnly: true, sameSite: 'lax', secure: secureCookies, signed: true } as const

  // Tokens are signed and checked at the process's Clock (a manual one in tests), in milliseconds.
  const clockTimestamp = () => account.run(currentTime).then((now) => now.getTime())

  const claimsOf = async (token: string, use: TokenUse): Promise<AccountClaims> => {
    const now = await clockTimestamp()
    try {
      const claims = app.jwt.verify<AccountClaims>(token, { clockTimestamp: now })
      if (claims.use === use && typeof claims.sub === 'string') return claims
    } catch { /* expired, altered or not a JWT: all the same 401 */ }
    throw notAuthenticated()
  }

  /** A bearer token wins over the cookie; a bearer token that does not verify is refused even with a valid cookie. */
  const userIdOf = async (request: FastifyRequest): Promise<string> => {
    const authorization = request.headers.authorization
    if (authorization !== undefined) {
      const match = /^Bearer\s+(\S+)$/i.exec(authorization)
      if (!match) throw notAuthenticated()
      return (await claimsOf(match[1]!, 'access')).sub
    }
    const cookie = request.cookies[SESSION_COOKIE]
    if (cookie === undefined) throw notAuthenticated()
    const unsigned = request.unsignCookie(cookie)
    if (!unsigned.valid || unsigned.value === null) throw notAuthenticated()
    return (await claimsOf(unsigned.value, 'session')).sub
  }

  /**
   * preHandler of every authenticated account route: resolves the credential to the user's read model (waiting
   * briefly, since a login reads the event store and may be ahead of the projection).
   */
  const requireUser = async (request: FastifyRequest) => {
    const userId = await userIdOf(request)
    await account.run(waitForPosition(USERS, userId, 0)) // any position: the user exists
    request.accountUser = await account.run(getUser(userId).pipe(Effect.catchTag('NotFound', () => Effect.fail(notAuthenticated()))))
  }

  return {
    issueAccessToken: async (userId: string) => ({
      access_token: app.jwt.sign({ sub: userId, use: 'access' }, { expiresIn: accessTokenTtlSeconds, clockTimestamp: await clockTimestamp() }),
      token_type: 'Bearer' as const,
      expires_in: accessTokenTtlSeconds,
    }),
    // Answers nothing: a fastify reply is a thenable that settles once sent, so awaiting one here would never end.
    startSession: async (reply: FastifyReply, userId: string): Promise<void> => {
      reply.setCookie(SESSION_COOKIE, app.jwt.sign({ sub: userId, use: 'session' }, { expiresIn: sessionTtlSeconds, clockTimestamp: await clockTimestamp() }), { ...cookieOptions, maxAge: sessionTtlSeconds })
    },
    endSession: (reply: FastifyReply) => reply.clearCookie(SESSION_COOKIE, cookieOptions),
    requireUser,
    /** preHandler of every account route that creates work: requireUser, then 403 `email_not_verified` for an unverified user. */
    requireVerifiedUser: async (request: FastifyRequest) => {
      await requireUser(request)
      const refused = refuseUnverified(userOf(request))
      if (refused) throw refused
    },
  }
}

export type Sessions = ReturnType<typeof makeSessions>

export const userOf = (request: FastifyRequest): UserView => {
  if (!request.accountUser) throw notAuthenticated()
  return request.accountUser
}
