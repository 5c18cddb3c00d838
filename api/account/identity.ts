import { Schema } from 'effect'
import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify'
import { currentTime } from '../../commands/clock.js'
import { authenticateUser, registerUser, verifyEmail } from '../../commands/users.js'
import { Forbidden, ValidationFailed } from '../../domain/errors.js'
import { checkCredentials } from '../../domain/user/credentials.js'
import { emailHash } from '../../domain/user/identity.js'
import { waitForPosition } from '../../projections/read-your-writes.js'
import { USERS } from '../../projections/users.js'
import { requestMetadata } from '../event-metadata.js'
import { openApiSchemaOf } from '../schema-of.js'
import type { AccountContext } from './context.js'
import { BadRequest } from './errors.js'
import type { LoginBackoff } from './login-backoff.js'
import type { RegistrationLimit } from './registration-limit.js'
import {
  accountSecurity, CredentialsBody, EmailAlreadyUsed, RegistrationClosed, InvalidCredentials, InvalidOrExpiredToken, MalformedBody, NotAuthenticated,
  TooManyAttempts, TooManyRegistrations, UserSummary, UserWithCreatedAt, ValidationErrorBody,
} from './schemas.js'
import { userOf, type Sessions } from './session.js'
import { sendVerifyPage, wantsHtml } from './verify-page.js'

const tags = ['account']
const credentialsOf = (body: unknown, purpose: 'register' | 'login') => {
  const checked = checkCredentials(body, purpose)
  if (!checked.ok) throw new ValidationFailed({ errors: checked.errors })
  return checked.value
}
const summary = (user: { user_id: string; email: string; is_verified: boolean }) => ({ id: user.user_id, email: user.email, isVerified: user.is_verified })

/** What guards the anonymous routes: `loginLimit` (per client address) and `backoff` (per account) /login and /token together. */
interface Guards {
  readonly loginLimit: preHandlerAsyncHookHandler
  readonly backoff: LoginBackoff
  readonly registrationLimit: RegistrationLimit
}

/** Registration, verification, login, logout, bearer tokens and /me. */
/** GET /registration's answer: the one source of its type and of the schema OpenAPI serves. */
const RegistrationView = Schema.Struct({ registration: Schema.Literal('open', 'closed') })

export const identityRoutes = async (app: FastifyInstance, account: AccountContext, sessions: Sessions, { loginLimit, backoff, registrationLimit }: Guards) => {
  /** During the account's backoff even the right password is refused (429): answering it would let guessing go on. */
  const authenticate = async (body: unknown) => {
    const credentials = credentialsOf(body, 'login')
    const accountKey = emailHash(credentials.email)
    const refused = backoff.begin(accountKey)
    if (refused) throw refused
    const user = await account.run(authenticateUser(credentials))
    backoff.succeeded(accountKey)
    return user
  }

  app.get('/registration', {
    schema: {
      tags, summary: 'Whether sign-up is open',
      description: 'The REGISTRATION setting, for a sign-up form to show itself only when POST /register can succeed (the dashboard hides its sign-up when `closed`). No authentication.',
      response: { 200: openApiSchemaOf(RegistrationView) },
    },
  }, async (): Promise<typeof RegistrationView.Type> => ({ registration: account.settings.registration }))

  app.post('/register', {
    // Before the body is read: a refused attempt costs nothing.
    onRequest: async (request) => {
      const refused = registrationLimit(request.ip, (await account.run(currentTime)).getTime())
      if (refused) throw refused
    },
    schema: {
      tags, summary: 'Register a user',
      description: 'Creates the user and their organization (on DEFAULT_PLAN, Free unless the operator set another) and sends a verification e-mail whose link (`/verify?token=…`) '
        + 'works once within VERIFICATION_TOKEN_TTL_SECONDS (default 24 h). The address is stored trimmed, lower-cased and in Unicode NFC, '
        + 'and mailed exactly as stored. 422 codes: missing_email, invalid_email (not a mailbox address, more than 254 characters or a local part over 64 bytes, '
        + 'a quoted local part, control or invisible characters, invalid Unicode), missing_password, password_too_short, password_too_long. '
        + 'With REGISTRATION=closed nobody can sign up (403 registration_closed); the operator adds users with `cli user create`. '
        + 'At most REGISTRATIONS_PER_HOUR (default 10) attempts per client address in each clock hour, accepted or not (429 too_many_registrations).',
      body: CredentialsBody,
      response: { 202: { type: 'null', description: 'Accepted; empty body.' }, 400: MalformedBody, 403: RegistrationClosed, 409: EmailAlreadyUsed, 422: ValidationErrorBody, 429: TooManyRegistrations },
    },
  }, async (request, reply) => {
    if (account.settings.registration === 'closed') throw new Forbidden({ code: 'registration_closed', message: 'sign-up is closed on this server' })
    const credentials = credentialsOf(request.body, 'register')
    await account.run(registerUser({
      credentials, plan: account.settings.defaultPlan, verificationTtlSeconds: account.settings.verificationTokenTtlSeconds, metadata: requestMetadata(request, 'anonymous'),
    }))
    return reply.code(202).send()
  })

  app.get('/verify', {
    schema: {
      tags, summary: 'Verify the e-mail address',
      description: 'The link of the verification e-mail. A token works once, until it expires. A browser (`Accept: text/html` before any '
        + '`application/json`) gets a small HTML page with the same status that says what happened and links to the dashboard; other clients get JSON.',
      querystring: { type: 'object', properties: { token: { type: 'string', description: 'From the verification e-mail.' } } },
      response: {
        200: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['verified'] } } },
        400: { type: 'object', description: 'No token in the query.', properties: { error: { type: 'string', enum: ['missing_token'] } } },
        422: InvalidOrExpiredToken,
      },
    },
  }, async (request, reply) => {
    const { token } = request.query as { token?: string }
    const html = wantsHtml(request)
    if (!token) {
      if (html) return sendVerifyPage(reply, 400, 'missing_token')
      throw new BadRequest({ code: 'missing_token' })
    }
    const verified = await account.run(verifyEmail(token, requestMetadata(request, 'anonymous'))).catch((error: unknown) => {
      if (html && (error as { _tag?: string })._tag === 'InvalidVerificationToken') return null
      throw error
    })
    if (!verified) return sendVerifyPage(reply, 422, 'invalid_or_expired_token')
    // Answer once /me shows the verified address.
    await account.run(waitForPosition(USERS, verified.user_id, verified.position))
    return html ? sendVerifyPage(reply, 200, 'verified') : { status: 'verified' }
  })

  app.post('/login', {
    onRequest: loginLimit,
    schema: {
      tags, summary: 'Log in with a cookie session',
      description: 'Sets the session cookie `sw_session` (signed, HttpOnly, SameSite=Lax, Path=/, Max-Age SESSION_TTL_SECONDS, Secure over https). '
        + 'Unverified users may log in; `isVerified` tells. At most 5 attempts per minute per client (with /token); after '
        + 'LOGIN_FAILURES_BEFORE_BACKOFF (default 5) consecutive failures for one address, that address waits (30 s, doubling up to 15 min) whatever the client, '
        + 'and even the right password answers 429 too_many_failed_logins until then.',
      body: CredentialsBody,
      response: {
        200: { type: 'object', required: ['status', 'user'], properties: { status: { type: 'string', enum: ['ok'] }, user: UserSummary } },
        400: MalformedBody, 401: InvalidCredentials, 422: ValidationErrorBody, 429: TooManyAttempts,
      },
    },
  }, async (request, reply) => {
    const user = await authenticate(request.body)
    await sessions.startSession(reply, user.user_id)
    return { status: 'ok', user: summary(user) }
  })

  app.post('/logout', {
    schema: {
      tags, summary: 'End the cookie session',
      description: 'Clears the `sw_session` cookie (answers 204 with or without a session). Sessions are stateless signed tokens: '
        + 'a copy of the cookie taken before logout stays valid until it expires.',
      response: { 204: { type: 'null', description: 'Cookie cleared.' } },
    },
  }, async (_request, reply) => {
    sessions.endSession(reply)
    return reply.code(204).send()
  })

  app.post('/token', {
    onRequest: loginLimit,
    schema: {
      tags, summary: 'Get a bearer access token',
      description: 'An HS256 JWT for `Authorization: Bearer …`, valid for `expires_in` seconds (ACCESS_TOKEN_TTL_SECONDS). At most 5 attempts per minute per client (with /login), '
        + 'and the same per-account backoff as /login (429 too_many_failed_logins).',
      body: CredentialsBody,
      response: {
        200: {
          type: 'object', required: ['access_token', 'token_type', 'expires_in', 'user'],
          properties: { access_token: { type: 'string' }, token_type: { type: 'string', enum: ['Bearer'] }, expires_in: { type: 'integer' }, user: UserSummary },
        },
        400: MalformedBody, 401: InvalidCredentials, 422: ValidationErrorBody, 429: TooManyAttempts,
      },
    },
  }, async (request) => {
    const user = await authenticate(request.body)
    return { ...(await sessions.issueAccessToken(user.user_id)), user: summary(user) }
  })

  app.get('/me', {
    preHandler: sessions.requireUser,
    schema: {
      tags, summary: 'The authenticated user', security: accountSecurity,
      response: {
        200: { type: 'object', required: ['authenticated', 'user'], properties: { authenticated: { type: 'boolean', enum: [true] }, user: UserWithCreatedAt } },
        401: NotAuthenticated,
      },
    },
  }, async (request) => {
    const user = userOf(request)
    return { authenticated: true, user: { ...summary(user), createdAt: user.created_at } }
  })
}
