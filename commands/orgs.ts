import { randomBytes, randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import { orgStream } from '../domain/events.js'
import { orgDecider } from '../domain/org/decider.js'
import { hashApiKey } from '../domain/secrets.js'
import type { KeyLimits } from '../domain/org/events.js'
import type { EventMetadata } from '../ports/event-store.js'
import { handle } from './handle.js'

const newSecret = () => `sk_${randomBytes(32).toString('base64url')}`

export const DEFAULT_KEY_LIMITS: KeyLimits = {
  rate_limit_rpm: 600, daily_quota: 50_000, max_concurrent_jobs: null, enforcement_mode: 'block', ip_allowlist: [],
}

export interface CreateApiKey {
  readonly org_id: string
  readonly name: string
  readonly scopes: readonly string[]
  readonly limits: KeyLimits
  readonly expires_at: string | null
  readonly metadata: EventMetadata
}

/** Creates a key; the secret is returned here and never again (only its hash is recorded). */
export const createApiKey = (input: CreateApiKey) =>
  Effect.gen(function* () {
    const secret = newSecret()
    const keyId = randomUUID()
    yield* handle(orgDecider, orgStream(input.org_id), {
      _tag: 'CreateApiKey', org_id: input.org_id, key_id: keyId, name: input.name, key_hash: hashApiKey(secret),
      key_prefix: secret.slice(0, 10), scopes: input.scopes, limits: input.limits, expires_at: input.expires_at, now: new Date().toISOString(),
    }, { org_id: input.org_id, metadata: input.metadata })
    return { key_id: keyId, secret }
  })

export const createOrg = (input: { readonly name: string; readonly plan: string; readonly metadata: EventMetadata }) =>
  Effect.gen(function* () {
    const orgId = randomUUID()
    yield* handle(orgDecider, orgStream(orgId), { _tag: 'CreateOrg', org_id: orgId, name: input.name, plan: input.plan, now: new Date().toISOString() }, { org_id: orgId, metadata: input.metadata })
    return { org_id: orgId }
  })

export const revokeApiKey = (input: { readonly org_id: string; readonly key_id: string; readonly metadata: EventMetadata }) =>
  handle(orgDecider, orgStream(input.org_id), { _tag: 'RevokeApiKey', org_id: input.org_id, key_id: input.key_id, now: new Date().toISOString() }, { org_id: input.org_id, metadata: input.metadata })
