import { Effect } from 'effect'
import { Unauthenticated } from '../domain/errors.js'
import { hashApiKey } from '../domain/secrets.js'
import type { KeyLimits } from '../domain/org/events.js'
import { DocumentStore, type DocumentStoreService } from '../ports/document-store.js'
import type { StoreUnavailable } from '../ports/event-store.js'
import { API_KEYS, API_KEY_HASHES, ORGS, type KeyDoc, type OrgDoc } from './orgs.js'
import { getDoc } from './projection.js'
import { makeSingleFlight } from './single-flight.js'
import { rememberedWhileUnchanged } from './while-unchanged.js'

export interface ApiPrincipal {
  readonly key_id: string
  readonly org_id: string
  readonly plan: string
  readonly scopes: readonly string[]
  readonly limits: KeyLimits
  readonly org_ip_allowlist: readonly string[]
}

const invalid = () => new Unauthenticated({ code: 'invalid_api_key', message: 'the API key is invalid, revoked or expired' })

type KeyRecords = { readonly key: KeyDoc; readonly org: OrgDoc | null } | null

/** The key and organization records behind a secret's hash: the hash's record names both, read at once. */
const recordsOf = (hash: string) =>
  Effect.gen(function* () {
    const ref = yield* getDoc(API_KEY_HASHES, hash)
    if (!ref) return null
    const [key, org] = yield* Effect.all([getDoc(API_KEYS, ref.key_id), getDoc(ORGS, ref.org_id)], { concurrency: 2 })
    return key && key.org_id === ref.org_id ? { key, org } : null
  })

/** Per document store: lookups in flight, which concurrent requests presenting the same key join. */
const lookups = new WeakMap<DocumentStoreService, ReturnType<typeof makeSingleFlight<KeyRecords, StoreUnavailable>>>()

const sharedRecordsOf = (docs: DocumentStoreService, hash: string) => {
  const shared = lookups.get(docs) ?? makeSingleFlight<KeyRecords, StoreUnavailable>()
  lookups.set(docs, shared)
  return shared(hash, Effect.provideService(recordsOf(hash), DocumentStore, docs))
}

/**
 * A key's records, remembered while none of the collections they come from changes: a key used for every request is
 * read once, not per request, and a revocation (or any other change) is seen by the next request, since the change's
 * write moves the collections' generation. Lookups joined with others in flight could have started before the
 * generation was taken, so a remembered key is always read on its own; unknown keys are not remembered.
 */
const rememberedRecordsOf = rememberedWhileUnchanged([API_KEY_HASHES.name, API_KEYS.name, ORGS.name], recordsOf, (records) => records !== null)

const keyRecordsOf = (hash: string) => Effect.flatMap(DocumentStore, (docs) => (docs.generation ? rememberedRecordsOf(hash) : sharedRecordsOf(docs, hash)))

/**
 * Resolves a presented secret to its key; revoked and expired keys answer the same 401 as unknown ones. A key's
 * records are read once while unchanged (keyRecordsOf), or, from a store that cannot tell, requests with the same key
 * at the same time share one lookup (a burst of submissions reads the key once, not per request).
 */
export const authenticateApiKey = (secret: string, now: Date) =>
  Effect.flatMap(keyRecordsOf(hashApiKey(secret)), (records) => {
    const principal = validPrincipal(records, now)
    return principal ? Effect.succeed(principal) : Effect.fail(invalid())
  })

/**
 * The principal of a secret whose key records are remembered and unchanged, found without running an effect (the
 * API authenticates every request): undefined when they must be read, or when the key is not valid now (then
 * authenticateApiKey reads or refuses it).
 */
export const rememberedPrincipal = (docs: DocumentStoreService, secret: string, now: Date): ApiPrincipal | undefined => {
  const records = rememberedRecordsOf.peek(docs, hashApiKey(secret))
  return records ? validPrincipal(records, now) ?? undefined : undefined
}

/** What a key's records allow now: its principal, or null for a revoked or expired key or one without organization. */
const validPrincipal = (records: KeyRecords, now: Date): ApiPrincipal | null => {
  if (!records) return null
  const { key, org } = records
  if (key.revoked_at || (key.expires_at && Date.parse(key.expires_at) <= now.getTime())) return null
  if (!org) return null
  return { key_id: key.key_id, org_id: key.org_id, plan: org.plan, scopes: key.scopes, limits: key.limits, org_ip_allowlist: org.ip_allowlist }
}
