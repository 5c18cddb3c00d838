import { Effect } from 'effect'
import { Unauthenticated } from '../domain/errors.js'
import { hashApiKey } from '../domain/secrets.js'
import type { KeyLimits } from '../domain/org/events.js'
import { API_KEYS, API_KEY_HASHES, ORGS } from './orgs.js'
import { getDoc } from './projection.js'

export interface ApiPrincipal {
  readonly key_id: string
  readonly org_id: string
  readonly plan: string
  readonly scopes: readonly string[]
  readonly limits: KeyLimits
  readonly org_ip_allowlist: readonly string[]
}

const invalid = () => new Unauthenticated({ code: 'invalid_api_key', message: 'the API key is invalid, revoked or expired' })

/** Resolves a presented secret to its key; revoked and expired keys answer the same 401 as unknown ones. */
export const authenticateApiKey = (secret: string, now: Date) =>
  Effect.gen(function* () {
    const ref = yield* getDoc(API_KEY_HASHES, hashApiKey(secret))
    if (!ref) return yield* Effect.fail(invalid())
    const key = yield* getDoc(API_KEYS, ref.key_id)
    if (!key || key.revoked_at || (key.expires_at && Date.parse(key.expires_at) <= now.getTime())) return yield* Effect.fail(invalid())
    const org = yield* getDoc(ORGS, key.org_id)
    if (!org) return yield* Effect.fail(invalid())
    const principal: ApiPrincipal = {
      key_id: key.key_id, org_id: key.org_id, plan: org.plan, scopes: key.scopes, limits: key.limits, org_ip_allowlist: org.ip_allowlist,
    }
    return principal
  })
