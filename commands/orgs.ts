import { randomBytes, randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import { STREAMS } from '../domain/streams.js'
import { orgDecider } from '../domain/org/decider.js'
import { hashApiKey } from '../domain/secrets.js'
import type { KeyLimits } from '../domain/org/events.js'
import { STANDARD_KEY_LIMITS } from '../domain/org/key-bounds.js'
import type { EventMetadata } from '../ports/event-store.js'
import { currentTime } from './clock.js'
import { handle } from './handle.js'

const newSecret = () => `sk_${randomBytes(32).toString('base64url')}`

export const DEFAULT_KEY_LIMITS: KeyLimits = STANDARD_KEY_LIMITS

export interface CreateApiKey {
  readonly org_id: string
  readonly name: string
  readonly scopes: readonly string[]
  /** Omitted limits (and expiry) take defaults: the standard ones, or the creating key's where it is narrower. */
  readonly limits: Partial<KeyLimits>
  readonly expires_at?: string | null | undefined
  /** The API key asking for this one (POST /v1/keys): the new key may allow no more than it. */
  readonly creator_key_id?: string | undefined
  readonly metadata: EventMetadata
}

/** Creates a key; the secret is returned here and never again (only its hash is recorded). */
export const createApiKey = (input: CreateApiKey) =>
  Effect.gen(function* () {
    const secret = newSecret()
    const keyId = randomUUID()
    const handled = yield* handle(orgDecider, STREAMS.org.stream(input.org_id), {
      _tag: 'CreateApiKey', org_id: input.org_id, key_id: keyId, name: input.name, key_hash: hashApiKey(secret),
      key_prefix: secret.slice(0, 10), scopes: input.scopes, limits: input.limits, expires_at: input.expires_at,
      creator_key_id: input.creator_key_id, now: (yield* currentTime).toISOString(),
    }, { org_id: input.org_id, metadata: input.metadata })
    return { key_id: keyId, secret, position: handled.position }
  })

export const createOrg = (input: { readonly name: string; readonly plan: string; readonly metadata: EventMetadata }) =>
  Effect.gen(function* () {
    const orgId = randomUUID()
    yield* handle(orgDecider, STREAMS.org.stream(orgId), { _tag: 'CreateOrg', org_id: orgId, name: input.name, plan: input.plan, now: (yield* currentTime).toISOString() }, { org_id: orgId, metadata: input.metadata })
    return { org_id: orgId }
  })

/** An operator adds scopes to an existing key of the organization; scopes it already holds change nothing. */
export const grantApiKeyScopes = (input: { readonly org_id: string; readonly key_id: string; readonly scopes: readonly string[]; readonly metadata: EventMetadata }) =>
  Effect.flatMap(currentTime, (now) => handle(orgDecider, STREAMS.org.stream(input.org_id), {
    _tag: 'GrantApiKeyScopes', org_id: input.org_id, key_id: input.key_id, scopes: input.scopes, now: now.toISOString(),
  }, { org_id: input.org_id, metadata: input.metadata }))

/** `revoker_key_id`: the API key asking, which may only revoke keys that allow no more than itself. */
export const revokeApiKey = (input: { readonly org_id: string; readonly key_id: string; readonly revoker_key_id?: string; readonly metadata: EventMetadata }) =>
  Effect.flatMap(currentTime, (now) => handle(orgDecider, STREAMS.org.stream(input.org_id), {
    _tag: 'RevokeApiKey', org_id: input.org_id, key_id: input.key_id, revoker_key_id: input.revoker_key_id, now: now.toISOString(),
  }, { org_id: input.org_id, metadata: input.metadata }))
