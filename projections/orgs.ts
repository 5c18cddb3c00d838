import { Effect } from 'effect'
import type { Projection } from './projection.js'
import { updateDoc } from './projection.js'

export const ORGS = 'orgs'
export const API_KEYS = 'api_keys'
/** Keyed by the SHA-256 of the secret, so authentication is one lookup. */
export const API_KEY_HASHES = 'api_key_hashes'

export const orgsProjection: Projection = {
  name: 'projection.orgs',
  categories: ['org'],
  collections: [ORGS, API_KEYS, API_KEY_HASHES],
  concurrency: 1,
  ordering: 'stream',
  apply: (event) => {
    const d = event.data as Record<string, unknown>
    switch (event.type) {
      case 'OrgCreated':
        return updateDoc(ORGS, d.org_id as string, event, () => ({ org_id: d.org_id, name: d.name, plan: d.plan, created_at: d.created_at, ip_allowlist: [] }))
      case 'OrgIpAllowlistSet':
        return updateDoc(ORGS, d.org_id as string, event, (doc) => doc && { ...doc, ip_allowlist: d.ip_allowlist })
      case 'ApiKeyCreated':
        return Effect.zipRight(
          updateDoc(API_KEYS, d.key_id as string, event, () => ({
            key_id: d.key_id, org_id: d.org_id, name: d.name, key_prefix: d.key_prefix, scopes: d.scopes, limits: d.limits,
            expires_at: d.expires_at, created_at: d.created_at, revoked_at: null,
          })),
          updateDoc(API_KEY_HASHES, d.key_hash as string, event, () => ({ key_id: d.key_id, org_id: d.org_id })),
        )
      case 'ApiKeyRevoked':
        return updateDoc(API_KEYS, d.key_id as string, event, (doc) => doc && { ...doc, revoked_at: d.revoked_at })
      default:
        return Effect.void
    }
  },
}
