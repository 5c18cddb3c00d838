import { SCOPES } from '../../domain/scopes.js'

/**
 * OpenAPI documentation of the account API. Bodies are validated by the domain, not by these schemas (see
 * api/app.ts); response schemas also serialize, so each lists every field the route sends.
 */
export const CredentialsBody = {
  type: 'object',
  required: ['email', 'password'],
  properties: {
    email: { type: 'string', format: 'email', maxLength: 254, description: 'A mailbox address (no display name, no quoted local part, no control or invisible characters); stored trimmed, lower-cased and in Unicode NFC.' },
    password: { type: 'string', minLength: 8, maxLength: 1024, description: 'At least 8 characters (registration).' },
  },
} as const

export const UserSummary = {
  type: 'object',
  required: ['id', 'email', 'isVerified'],
  properties: { id: { type: 'string', format: 'uuid' }, email: { type: 'string' }, isVerified: { type: 'boolean' } },
} as const

export const UserWithCreatedAt = {
  ...UserSummary,
  required: [...UserSummary.required, 'createdAt'],
  properties: { ...UserSummary.properties, createdAt: { type: 'string', format: 'date-time' } },
} as const

const detail = (description: string, codes: readonly string[]) => ({
  type: 'object', description, required: ['detail'], properties: { detail: { type: 'string', enum: codes } },
})

export const ValidationErrorBody = {
  type: 'object',
  description: 'One entry per failing field.',
  required: ['detail', 'errors'],
  properties: {
    detail: { type: 'string', enum: ['validation_error'] },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'code', 'message'],
        properties: { field: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
} as const

export const MalformedBody = { type: 'object', description: 'The body is not JSON.', properties: { error: { type: 'string', enum: ['malformed_body'] } } } as const
export const InvalidCredentials = detail('Unknown e-mail or wrong password (the two are not told apart).', ['invalid_credentials'])
export const TooManyAttempts = detail(
  '`too_many_attempts`: more than LOGIN_ATTEMPTS_PER_MINUTE (default 5) attempts on /login and /token together from one client address within a minute. '
  + '`too_many_failed_logins`: the address had LOGIN_FAILURES_BEFORE_BACKOFF (default 5) consecutive failed logins, from any client; it waits 30 s, '
  + 'doubled with each further failure up to 15 min, and until then even the right password is refused. '
  + 'Headers: Retry-After (seconds), X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset.',
  ['too_many_attempts', 'too_many_failed_logins'],
)
export const TooManyRegistrations = detail(
  'More than REGISTRATIONS_PER_HOUR (default 10) POST /register attempts from one client address within the clock hour (each registration sends a mail). '
  + 'Headers: Retry-After (seconds until the hour ends), X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset.',
  ['too_many_registrations'],
)
export const NotAuthenticated = {
  type: 'object', description: 'No bearer token or session cookie, or one that is invalid or expired.',
  required: ['authenticated'], properties: { authenticated: { type: 'boolean', enum: [false] } },
} as const
export const EmailAlreadyUsed = detail('The e-mail address is registered already.', ['email_already_used'])
export const InvalidOrExpiredToken = detail('The token is unknown, expired or was used already.', ['invalid_or_expired_token'])
export const RegistrationClosed = detail('Sign-up is closed on this server (REGISTRATION=closed): the operator adds users with `cli user create`.', ['registration_closed'])
export const EmailNotVerified = detail('Verify the e-mail address first (GET /verify).', ['email_not_verified'])

export const ApiKeyCreatedBody = {
  type: 'object',
  properties: {
    key_id: { type: 'string' },
    api_key: { type: 'string', description: 'The secret for the `X-API-Key` header of the v1 API. Shown in this answer only: the service stores its SHA-256.' },
    org_id: { type: 'string', description: "The user's organization." },
    name: { type: 'string' },
    key_prefix: { type: 'string', description: 'First characters of the secret, to recognise it.' },
    scopes: { type: 'array', items: { type: 'string', enum: SCOPES } },
    rate_limit_rpm: { type: 'integer' }, daily_quota: { type: 'integer' }, max_concurrent_jobs: { type: ['integer', 'null'] },
    enforcement_mode: { type: 'string', enum: ['block', 'observe'] }, ip_allowlist: { type: 'array', items: { type: 'string' } },
    expires_at: { type: ['string', 'null'] }, created_at: { type: 'string', format: 'date-time' },
  },
} as const

export const accountSecurity: { [scheme: string]: string[] }[] = [{ bearerAuth: [] }, { sessionCookie: [] }]

/**
 * Longest `q` of the account lists. Encoded in the URL a character can take 12 bytes, and the whole request head
 * must stay under Node's header limit (a longer one is answered 431 before any route runs).
 */
export const SEARCH_TEXT_MAX_LENGTH = 256
