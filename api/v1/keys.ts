import type { FastifyInstance } from 'fastify'
import { createApiKey, revokeApiKey } from '../../commands/orgs.js'
import { currentTime } from '../../commands/clock.js'
import { ValidationFailed } from '../../domain/errors.js'
import { validateKeyRequest } from '../../domain/org/key-request.js'
import { SCOPES } from '../../domain/scopes.js'
import { getKey, listKeys } from '../../projections/org-queries.js'
import type { KeyDoc } from '../../projections/orgs.js'
import { principalOf, requireApiKey } from '../auth.js'
import type { RouteContext } from '../context.js'
import { errors, security } from './route-helpers.js'
import { requestMetadata } from '../event-metadata.js'
import { API_KEYS } from '../../projections/orgs.js'
import { waitForPosition } from '../../projections/read-your-writes.js'

const keyView = (doc: KeyDoc) => ({
  key_id: doc.key_id, name: doc.name, key_prefix: doc.key_prefix, scopes: doc.scopes, ...doc.limits,
  expires_at: doc.expires_at, created_at: doc.created_at, revoked_at: doc.revoked_at,
})

const KeySchema = {
  type: 'object',
  properties: {
    key_id: { type: 'string' }, name: { type: 'string' }, key_prefix: { type: 'string', description: 'First characters of the secret, to recognise it.' },
    scopes: { type: 'array', items: { type: 'string', enum: SCOPES } },
    rate_limit_rpm: { type: 'integer' }, daily_quota: { type: 'integer' }, max_concurrent_jobs: { type: ['integer', 'null'] },
    enforcement_mode: { type: 'string', enum: ['block', 'observe'] }, ip_allowlist: { type: 'array', items: { type: 'string' } },
    expires_at: { type: ['string', 'null'] }, created_at: { type: 'string' }, revoked_at: { type: ['string', 'null'] },
  },
} as const

export const keyRoutes = async (app: FastifyInstance, ctx: RouteContext) => {
  app.post('/v1/keys', {
    preHandler: requireApiKey(ctx, 'keys.manage'),
    schema: {
      tags: ['keys'], summary: 'Create an API key', security,
      description: `The secret (\`api_key\`) is in this answer only; the service stores its SHA-256. Scopes: ${SCOPES.map((s) => `\`${s}\``).join(', ')}. A key can only create keys that allow no more than itself: scopes a subset of its own, rate_limit_rpm, daily_quota and max_concurrent_jobs at most its own, enforcement_mode block when it is blocked (unless it holds org.manage), expires_at no later than its own, and an ip_allowlist whose every entry (address or CIDR range) lies within its own (non-empty when its own is). A wider request answers 403 \`key_exceeds_creator\` with one \`details\` entry per wider field (code \`exceeds_creator_<field>\`), and creates nothing. Defaults for omitted fields: rate_limit_rpm 600, daily_quota 50000, max_concurrent_jobs none (the plan's cap applies; the effective limit is the smaller), enforcement_mode block, ip_allowlist empty (any address), expires_at none; where the creating key is narrower, its own value is the default instead (so an omitted field never makes the request fail). 422 codes: missing_name, invalid_name, missing_scopes, invalid_scopes, invalid_rate_limit_rpm, invalid_daily_quota, invalid_max_concurrent_jobs, invalid_enforcement_mode, invalid_ip_allowlist, invalid_expires_at, unknown_field.`,
      body: {
        type: 'object', required: ['name', 'scopes'], additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' }, scopes: { type: 'array', minItems: 1, items: { type: 'string', enum: SCOPES } },
          rate_limit_rpm: { type: 'integer', minimum: 1, maximum: 100000, default: 600 }, daily_quota: { type: 'integer', minimum: 1, maximum: 100000000, default: 50000 },
          max_concurrent_jobs: { type: ['integer', 'null'], minimum: 1, maximum: 10000 }, enforcement_mode: { type: 'string', enum: ['block', 'observe'], default: 'block' },
          ip_allowlist: { type: 'array', maxItems: 100, items: { type: 'string', description: 'IPv4/IPv6 address or CIDR range' } },
          expires_at: { type: ['string', 'null'], format: 'date-time', description: 'In the future.' },
        },
      },
      response: { 201: { ...KeySchema, properties: { ...KeySchema.properties, api_key: { type: 'string', description: 'The secret, shown once.' } } }, ...errors(400, 401, 403, 422, 429) },
    },
  }, async (request, reply) => {
    const principal = principalOf(request)
    const checked = validateKeyRequest(request.body, await ctx.run(currentTime))
    if (!checked.ok) throw new ValidationFailed({ errors: checked.errors })
    const created = await ctx.run(createApiKey({
      org_id: principal.org_id, ...checked.value, creator_key_id: principal.key_id,
      metadata: requestMetadata(request, `api_key:${principal.key_id}`),
    }))
    await ctx.run(waitForPosition(API_KEYS, created.key_id, created.position))
    const doc = await ctx.run(getKey(principal.org_id, created.key_id))
    return reply.code(201).send({ ...keyView(doc), api_key: created.secret })
  })

  app.get('/v1/keys', {
    preHandler: requireApiKey(ctx, 'keys.manage'),
    schema: { tags: ['keys'], summary: 'List API keys (never their secrets)', security, response: { 200: { type: 'object', properties: { items: { type: 'array', items: KeySchema } } }, ...errors(401, 403) } },
  }, async (request) => ({ items: (await ctx.run(listKeys(principalOf(request).org_id))).map(keyView) }))

  app.delete('/v1/keys/:key_id', {
    preHandler: requireApiKey(ctx, 'keys.manage'),
    schema: {
      tags: ['keys'], summary: 'Revoke an API key', security,
      description: 'Revoked keys answer 401 from then on. Revoking twice is harmless. A key can only revoke keys that allow no more than itself (same rule as creation): a wider one answers 403 `key_exceeds_creator` with `details` naming the wider fields.',
      params: { type: 'object', properties: { key_id: { type: 'string', maxLength: 64 } } },
      response: { 200: KeySchema, ...errors(401, 403, 404) },
    },
  }, async (request) => {
    const principal = principalOf(request)
    const { key_id } = request.params as { key_id: string }
    await ctx.run(getKey(principal.org_id, key_id))
    const revoked = await ctx.run(revokeApiKey({ org_id: principal.org_id, key_id, revoker_key_id: principal.key_id, metadata: requestMetadata(request, `api_key:${principal.key_id}`) }))
    await ctx.run(waitForPosition(API_KEYS, key_id, revoked.position))
    return keyView(await ctx.run(getKey(principal.org_id, key_id)))
  })
}
