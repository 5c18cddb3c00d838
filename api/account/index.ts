import cookie from '@fastify/cookie'
import jwt from '@fastify/jwt'
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import { hkdfSync } from 'node:crypto'
import { LimitExceeded } from '../../domain/errors.js'
import { DEFAULT_LOGIN_BACKOFF } from '../../domain/user/login-backoff.js'
import { apiKeyRoutes } from './api-keys.js'
import type { AccountContext } from './context.js'
import { sendAccountError } from './errors.js'
import { identityRoutes } from './identity.js'
import { makeLoginBackoff } from './login-backoff.js'
import { makeRegistrationLimit } from './registration-limit.js'
import { contentMonitorRoutes } from './content-monitors.js'
import { scrapeRoutes } from './scrapes.js'
import { makeSessions, userOf } from './session.js'
import type { ClockService } from '../../ports/clock.js'

/** The cookie signing key is derived from the JWT secret with its own label, never the same key for two jobs. */
const cookieSecret = (jwtSecret: string) => Buffer.from(hkdfSync('sha256', jwtSecret, 'scrapeworks', 'account-session-cookie', 32)).toString('base64url')

/**
 * The account API family (SPEC 4.1): its own scope with cookies, JWTs, the login limit and its own error bodies.
 * Every authenticated account route (/api-keys, /scrapes, /content-monitors) reuses `sessions.requireUser`.
 */
export const accountRoutes = async (app: FastifyInstance, account: AccountContext, clock: ClockService) => {
  app.setErrorHandler(sendAccountError)
  await app.register(cookie, { secret: cookieSecret(account.settings.jwtSecret), hook: 'onRequest' })
  await app.register(jwt, { secret: account.settings.jwtSecret, sign: { algorithm: 'HS256' }, verify: { algorithms: ['HS256'] } })
  // Rate-limit headers are written by sendAccountError from the LimitExceeded, the one place that answers 429.
  await app.register(rateLimit, { global: false })
  const loginLimit = app.rateLimit({
    max: account.settings.loginAttemptsPerMinute,
    timeWindow: 60_000,
    // Per client address (request.ip; behind a proxy, configure fastify's trustProxy so it is the client's).
    keyGenerator: (request) => `login:${request.ip}`,
    // The plugin counts this window in real time (in its own store), so its reset is real time too, not the Clock's.
    errorResponseBuilder: (_request, context) => new LimitExceeded({
      code: 'too_many_attempts', message: 'too many login attempts; retry later', limit: context.max, remaining: 0,
      resetAt: Date.now() + context.ttl, retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)),
    }),
  })
  const sessions = makeSessions(app, account)
  const backoff = makeLoginBackoff({ ...DEFAULT_LOGIN_BACKOFF, freeFailures: account.settings.loginFailuresBeforeBackoff }, () => clock.now().getTime())
  await identityRoutes(app, account, sessions, { loginLimit, backoff, registrationLimit: makeRegistrationLimit(account.settings.registrationsPerHour) })
  await apiKeyRoutes(app, account, sessions)
  // Runs after requireUser: the window is per user, whichever credential (token or cookie) they use.
  const scrapeLimit = app.rateLimit({
    max: account.settings.scrapesPerMinute,
    timeWindow: 60_000,
    keyGenerator: (request) => `scrapes:${userOf(request).user_id}`,
    // Real time, as the login limit's reset.
    errorResponseBuilder: (_request, context) => new LimitExceeded({
      code: 'scrape_rate_limited', message: 'too many /scrapes requests; retry later', limit: context.max, remaining: 0,
      resetAt: Date.now() + context.ttl, retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)),
    }),
  })
  await scrapeRoutes(app, account, sessions, scrapeLimit)
  await contentMonitorRoutes(app, account, sessions)
}
