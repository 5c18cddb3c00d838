import type { FastifyInstance } from 'fastify'
import { createApiKey, DEFAULT_KEY_LIMITS } from '../../commands/orgs.js'
import { currentTime } from '../../commands/clock.js'
import { ValidationFailed } from '../../domain/errors.js'
import { SCOPES } from '../../domain/scopes.js'
import { ACCOUNT_KEY_MAX_LIFETIME_SECONDS, ACCOUNT_KEY_MIN_LIFETIME_SECONDS, checkAccountKeyRequest } from '../../domain/user/key-request.js'
import { hashApiKey } from '../../domain/secrets.js'
import { getKey } from '../../projections/org-queries.js'
import { API_KEY_HASHES, API_KEYS } from '../../projections/orgs.js'
import { waitForPosition } from '../../projections/read-your-writes.js'
import { requestMetadata } from '../event-metadata.js'
import type { AccountContext } from './context.js'
import { accountSecurity, ApiKeyCreatedBody, EmailNotVerified, MalformedBody, NotAuthenticated, ValidationErrorBody } from './schemas.js'
import { userOf, type Sessions } from './session.js'

/** The bridge from the account API to the v1 API: a verified user gets API keys for their organization. */
export const apiKeyRoutes = async (app: FastifyInstance, account: AccountContext, sessions: Sessions) => {
  app.post('/api-keys', {
    preHandler: sessions.requireVerifiedUser,
    schema: {
      tags: ['account'], summary: "Create a v1 API key for the user's organization", security: accountSecurity,
      description: `For users with a verified e-mail. The key holds the \`scopes\` asked for, every scope (${SCOPES.map((s) => `\`${s}\``).join(', ')}) when absent, and the default limits `
        + '(rate_limit_rpm 600, daily_quota 50000, enforcement_mode block); narrower keys come from `POST /v1/keys`. The secret `api_key` is in this '
        + 'answer only. Operators can create an organization and its first key without the account API: `npm run --silent cli -- org create --name NAME --plan PLAN`. '
        + '`expires_in_seconds` (optional, ' + `${ACCOUNT_KEY_MIN_LIFETIME_SECONDS} to ${ACCOUNT_KEY_MAX_LIFETIME_SECONDS}` + ') makes a key that stops working that long after its '
        + 'creation (the dashboard\'s own key lives one hour and is renewed by the open tab); without it the key never expires. '
        + '422 codes: missing_name, invalid_name, invalid_scopes, invalid_expires_in_seconds, unknown_field.',
      body: {
        type: 'object', required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 100 },
          scopes: { type: 'array', minItems: 1, items: { type: 'string', enum: SCOPES } },
          expires_in_seconds: { type: 'integer', minimum: ACCOUNT_KEY_MIN_LIFETIME_SECONDS, maximum: ACCOUNT_KEY_MAX_LIFETIME_SECONDS },
        },
      },
      response: { 201: ApiKeyCreatedBody, 400: MalformedBody, 401: NotAuthenticated, 403: EmailNotVerified, 422: ValidationErrorBody },
    },
  }, async (request, reply) => {
    const user = userOf(request)
    const checked = checkAccountKeyRequest(request.body)
    if (!checked.ok) throw new ValidationFailed({ errors: checked.errors })
    const created = await account.run(createApiKey({
      org_id: user.org_id, name: checked.value.name, scopes: checked.value.scopes, limits: DEFAULT_KEY_LIMITS,
      // The same Clock the v1 API's key check reads (api/auth.ts).
      expires_at: checked.value.expiresInSeconds === null ? null : new Date((await account.run(currentTime)).getTime() + checked.value.expiresInSeconds * 1000).toISOString(),
      metadata: requestMetadata(request, `user:${user.user_id}`),
    }))
    // Answered once the v1 API accepts the key: both documents authentication reads show its creation.
    await account.run(waitForPosition(API_KEYS, created.key_id, created.position))
    await account.run(waitForPosition(API_KEY_HASHES, hashApiKey(created.secret), created.position))
    const key = await account.run(getKey(user.org_id, created.key_id))
    return reply.code(201).send({
      key_id: created.key_id, api_key: created.secret, org_id: user.org_id, name: key.name, key_prefix: key.key_prefix, scopes: key.scopes,
      ...key.limits, expires_at: key.expires_at, created_at: key.created_at,
    })
  })
}
