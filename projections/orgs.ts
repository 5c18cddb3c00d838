import type { KeyLimits } from '../domain/org/events.js'
import { collection, defineProjection, updateDoc, type Stored } from './projection.js'

export type OrgDoc = Stored<{
  readonly org_id: string
  readonly name: string
  readonly plan: string
  readonly created_at: string
  readonly ip_allowlist: readonly string[]
}>

/** An API key as its organization sees it: never the secret nor its hash. */
export type KeyDoc = Stored<{
  readonly key_id: string
  readonly org_id: string
  readonly name: string
  readonly key_prefix: string
  readonly scopes: readonly string[]
  readonly limits: KeyLimits
  readonly expires_at: string | null
  readonly created_at: string
  readonly revoked_at: string | null
}>

/** Keyed by the SHA-256 of the secret, so authentication is one lookup. */
export type KeyHashDoc = Stored<{ readonly key_id: string; readonly org_id: string }>

export const ORGS = collection<OrgDoc>('orgs')
export const API_KEYS = collection<KeyDoc>('api_keys')
export const API_KEY_HASHES = collection<KeyHashDoc>('api_key_hashes')

export const orgsProjection = defineProjection({
  name: 'projection.orgs',
  categories: ['org'],
  collections: [ORGS.name, API_KEYS.name, API_KEY_HASHES.name],
  indexes: [{ collection: API_KEYS.name, fields: [['org_id', 1], ['created_at', 1]] }],
  concurrency: 1,
  ordering: 'stream',
  fold: (event, envelope, view) => {
    switch (event._tag) {
      case 'OrgCreated':
        return updateDoc(view, ORGS, event.org_id, envelope, () => ({
          org_id: event.org_id, name: event.name, plan: event.plan, created_at: event.created_at, ip_allowlist: [],
        }))
      case 'OrgIpAllowlistSet':
        return updateDoc(view, ORGS, event.org_id, envelope, (doc) => doc && { ...doc, ip_allowlist: event.ip_allowlist })
      case 'ApiKeyCreated':
        updateDoc(view, API_KEYS, event.key_id, envelope, () => ({
          key_id: event.key_id, org_id: event.org_id, name: event.name, key_prefix: event.key_prefix, scopes: event.scopes,
          limits: event.limits, expires_at: event.expires_at, created_at: event.created_at, revoked_at: null,
        }))
        return updateDoc(view, API_KEY_HASHES, event.key_hash, envelope, () => ({ key_id: event.key_id, org_id: event.org_id }))
      case 'ApiKeyRevoked':
        return updateDoc(view, API_KEYS, event.key_id, envelope, (doc) => doc && { ...doc, revoked_at: event.revoked_at })
      case 'OrgPlanChanged':
        return updateDoc(view, ORGS, event.org_id, envelope, (doc) => doc && { ...doc, plan: event.plan })
      case 'ApiKeyScopesGranted':
        return updateDoc(view, API_KEYS, event.key_id, envelope, (doc) => doc && { ...doc, scopes: [...new Set([...doc.scopes, ...event.scopes])] })
      case 'OrgSummariesSet':
        // Read by the detector from the organization's stream; no API shows it.
        return
    }
  },
})
