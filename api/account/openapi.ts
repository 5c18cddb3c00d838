import { SESSION_COOKIE } from './session.js'

/** The account API's part of the OpenAPI document: its tag and its two security schemes. */
export const ACCOUNT_OPENAPI_TAG = {
  name: 'account',
  description: [
    'Account API: no version prefix; bearer token or session cookie. Register (`POST /register`), verify the e-mail',
    '(`GET /verify?token=` from the verification e-mail), then either `POST /token` for a bearer JWT',
    '(`Authorization: Bearer <access_token>`, lifetime ACCESS_TOKEN_TTL_SECONDS) or `POST /login` for a cookie session.',
    `The session cookie is \`${SESSION_COOKIE}\`: a signed cookie holding a JWT, \`HttpOnly\`, \`SameSite=Lax\`, \`Path=/\`,`,
    '`Max-Age` SESSION_TTL_SECONDS (default 7 days), `Secure` when the service is served over https. `POST /logout` clears it.',
    'Login attempts (`/login` and `/token` together) are limited to 5 per minute per client address: the next answers',
    "429 `{detail: 'too_many_attempts'}` with `Retry-After`. Each user has an organization on the Free plan; verified users",
    'get v1 API keys for it from `POST /api-keys`. Errors: 400 `{error}`, 401 `{detail: invalid_credentials}` on login or',
    '`{authenticated: false}` without a valid session, 409/403/404 `{detail}`, 422 `{detail, errors?}`, 429 `{detail}`.',
  ].join(' '),
}

export const ACCOUNT_SECURITY_SCHEMES = {
  bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'access_token from POST /token' },
  sessionCookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'Set by POST /login; signed, HttpOnly, SameSite=Lax.' },
} as const
