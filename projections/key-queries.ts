import { Effect } from 'effect'
import { Unauthenticated } from '../domain/errors.js'
import { hashApiKey } from '../domain/secrets.js'
import type { KeyLimits } from '../domain/org/events.js'
import { DocumentStore } from '../ports/document-store.js'
import { API_KEYS, API_KEY_HASHES, ORGS } from './orgs.js'

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
    const docs = yield* DocumentStore
    const hash = hashApiKey(secret)
    const ref = yield* docs.get(API_KEY_HASHES, hash)
    if (!ref) return yield* Effect.fail(invalid())
    const key = yield* docs.get(API_KEYS, ref.key_id as string)
    if (!key || key.revoked_at || (key.expires_at && Date.parse(key.expires_at as string) <= now.getTime())) return yield* Effect.fail(invalid())
    const org = yield* docs.get(ORGS, key.org_id as string)
    if (!org) return yield* Effect.fail(invalid())
    const principal: ApiPrincipal = {
      key_id: key.key_id as string, org_id: key.org_id as string, plan: org.plan as string,
      scopes: key.scopes as string[], limits: key.limits as KeyLimits,
      org_ip_allowlist: (org.ip_allowlist as string[] | undefined) ?? [],
    }
    return principal
  })
