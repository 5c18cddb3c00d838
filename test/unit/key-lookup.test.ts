import t from 'tap'
import { Effect } from 'effect'
import { makeMemoryDocumentStore } from '../../infra/memory/document-store.js'
import { hashApiKey } from '../../domain/secrets.js'
import { DocumentStore } from '../../ports/document-store.js'
import { authenticateApiKey } from '../../projections/key-queries.js'

const limits = { rate_limit_rpm: 60, daily_quota: 100, max_concurrent_jobs: null, enforcement_mode: 'block', ip_allowlist: [] }
const now = new Date('2026-11-24T12:00:00Z')

const seeded = async () => {
  const docs = makeMemoryDocumentStore()
  const put = (name: string, doc: Record<string, unknown> & { _id: string }) => Effect.runPromise(docs.put(name, { _position: 1, ...doc }))
  await put('api_key_hashes', { _id: hashApiKey('secret-1'), key_id: 'k1', org_id: 'o1' })
  await put('api_keys', { _id: 'k1', key_id: 'k1', org_id: 'o1', name: 'n', key_prefix: 'p', scopes: ['jobs.create'], limits, expires_at: null, created_at: now.toISOString(), revoked_at: null })
  await put('orgs', { _id: 'o1', org_id: 'o1', name: 'O', plan: 'pro', created_at: now.toISOString(), ip_allowlist: [] })
  return docs
}

t.test('requests presenting one key at the same time share one lookup', async (t) => {
  const docs = await seeded()
  let gets = 0
  const counting = { ...docs, get: ((name, id) => { gets += 1; return Effect.delay(docs.get(name, id), '10 millis') }) as typeof docs.get }
  const principals = await Effect.runPromise(Effect.provideService(
    Effect.all(Array.from({ length: 20 }, () => authenticateApiKey('secret-1', now)), { concurrency: 'unbounded' }), DocumentStore, counting))
  t.ok(principals.every((p) => p.key_id === 'k1' && p.org_id === 'o1' && p.plan === 'pro'))
  t.equal(gets, 3, 'one lookup (hash, key, organization) for twenty requests')
  const later = await Effect.runPromise(Effect.provideService(authenticateApiKey('secret-1', now), DocumentStore, counting))
  t.equal(later.key_id, 'k1')
  t.equal(gets, 6, 'nothing is kept once a lookup ends: a later request reads again (a revocation shows at once)')
})

t.test('an unknown secret, and a revoked key, answer invalid_api_key', async (t) => {
  const docs = await seeded()
  const attempt = (secret: string) => Effect.runPromise(Effect.either(Effect.provideService(authenticateApiKey(secret, now), DocumentStore, docs)))
  const unknown = await attempt('secret-2')
  t.equal(unknown._tag === 'Left' && unknown.left._tag === 'Unauthenticated' && unknown.left.code, 'invalid_api_key')
  await Effect.runPromise(docs.put('api_keys', { _id: 'k1', _position: 2, key_id: 'k1', org_id: 'o1', name: 'n', key_prefix: 'p', scopes: [], limits, expires_at: null, created_at: now.toISOString(), revoked_at: now.toISOString() }))
  const revoked = await attempt('secret-1')
  t.equal(revoked._tag === 'Left' && revoked.left._tag === 'Unauthenticated' && revoked.left.code, 'invalid_api_key')
})
