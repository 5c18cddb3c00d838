import t from 'tap'
import { scenario } from '../helpers/given-when-then.js'
import { orgDecider, type OrgCommand } from '../../domain/org/decider.js'
import { ApiKeyCreated, ApiKeyRevoked, ApiKeyScopesGranted, OrgCreated, type KeyLimits } from '../../domain/org/events.js'

/**
 * Keys keep the scopes they were created with; a scope added by a later release (`jobs.delete`) reaches an existing
 * key only through an operator's grant, which then bounds the keys it creates like any scope it was created with.
 */
const NOW = '2024-05-01T12:00:00.000Z'
const given = scenario(t, orgDecider)
const limits: KeyLimits = { rate_limit_rpm: 600, daily_quota: 50_000, max_concurrent_jobs: null, enforcement_mode: 'block', ip_allowlist: [] }
const orgCreated = new OrgCreated({ org_id: 'o1', name: 'Acme', plan: 'pro', created_at: NOW })
/** A key made before `jobs.delete` existed. */
const older = new ApiKeyCreated({
  key_id: 'k1', org_id: 'o1', name: 'default', key_hash: 'hash-k1', key_prefix: 'sk_x', scopes: ['jobs.create', 'jobs.read', 'keys.manage'], limits, expires_at: null, created_at: NOW,
})
const grant = (scopes: string[], key_id = 'k1'): OrgCommand => ({ _tag: 'GrantApiKeyScopes', org_id: 'o1', key_id, scopes, now: NOW })
const granted = new ApiKeyScopesGranted({ org_id: 'o1', key_id: 'k1', scopes: ['jobs.delete'], granted_at: NOW })
const createWith = (scopes: string[]): OrgCommand => ({
  _tag: 'CreateApiKey', org_id: 'o1', key_id: 'k2', name: 'deleter', key_hash: 'hash-k2', key_prefix: 'sk_y', scopes, limits: {}, creator_key_id: 'k1', now: NOW,
})

given([orgCreated, older]).when(createWith(['jobs.delete'])).then({ _tag: 'Forbidden', code: 'key_exceeds_creator' }, 'an older key cannot create a key with the new scope')
given([orgCreated, older]).when(grant(['jobs.delete', 'jobs.read', 'jobs.delete'])).then([granted], 'a grant records only the scopes the key lacks, once each')
given([orgCreated, older, granted]).when(grant(['jobs.delete'])).then([], 'granting a held scope records nothing')
given([orgCreated, older, granted]).when(createWith(['jobs.delete'])).then([new ApiKeyCreated({
  key_id: 'k2', org_id: 'o1', name: 'deleter', key_hash: 'hash-k2', key_prefix: 'sk_y', scopes: ['jobs.delete'], limits, expires_at: null, created_at: NOW,
})], 'after the grant the key creates keys with the scope')
given([orgCreated, older]).when(grant(['jobs.destroy'])).then({ _tag: 'ValidationFailed', errors: [{ field: 'scopes', code: 'invalid_scopes' }] }, 'an unknown scope is refused')
given([orgCreated, older]).when(grant([])).then({ _tag: 'ValidationFailed', errors: [{ field: 'scopes', code: 'invalid_scopes' }] }, 'an empty grant is refused')
given([orgCreated, older]).when(grant(['jobs.delete'], 'k9')).then({ _tag: 'NotFound', resource: 'api_key', id: 'k9' }, "a key not of this organization is not found")
given([]).when(grant(['jobs.delete'])).then({ _tag: 'NotFound', resource: 'org' }, 'a missing organization is not found')
given([orgCreated, older, new ApiKeyRevoked({ org_id: 'o1', key_id: 'k1', revoked_at: NOW })]).when(grant(['jobs.delete']))
  .then({ _tag: 'StateConflict', code: 'key_revoked' }, 'a revoked key gets nothing')
