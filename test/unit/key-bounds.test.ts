import t from 'tap'
import { scenario } from '../helpers/given-when-then.js'
import { allowlistWithin, ruleWithin } from '../../domain/ip-allowlist.js'
import { orgDecider, type OrgCommand } from '../../domain/org/decider.js'
import { ApiKeyCreated, ApiKeyRevoked, OrgCreated, type KeyLimits } from '../../domain/org/events.js'

const NOW = '2024-05-01T12:00:00.000Z'
const given = scenario(t, orgDecider)

const orgCreated = new OrgCreated({ org_id: 'o1', name: 'Acme', plan: 'pro', created_at: NOW })
const open: KeyLimits = { rate_limit_rpm: 600, daily_quota: 50_000, max_concurrent_jobs: null, enforcement_mode: 'block', ip_allowlist: [] }
const keyCreated = (key_id: string, scopes: string[], limits: Partial<KeyLimits> = {}, expires_at: string | null = null) => new ApiKeyCreated({
  key_id, org_id: 'o1', name: key_id, key_hash: `hash-${key_id}`, key_prefix: 'sk_x', scopes, limits: { ...open, ...limits }, expires_at, created_at: NOW,
})
const EXPIRY = '2030-01-01T00:00:00.000Z'
/** A narrow manager: two scopes, 100 rpm, 1,000 a day, 2 at once, expiring, from 10.0.0.0/8 only. */
const manager = keyCreated('manager', ['keys.manage', 'jobs.read'], { rate_limit_rpm: 100, daily_quota: 1000, max_concurrent_jobs: 2, ip_allowlist: ['10.0.0.0/8'] }, EXPIRY)
const admin = keyCreated('admin', ['keys.manage', 'jobs.read', 'jobs.create', 'org.manage'])

const create = (fields: Partial<Extract<OrgCommand, { _tag: 'CreateApiKey' }>>): OrgCommand => ({
  _tag: 'CreateApiKey', org_id: 'o1', key_id: 'new', name: 'new', key_hash: 'hash-new', key_prefix: 'sk_y', scopes: ['jobs.read'], limits: {},
  creator_key_id: 'manager', now: NOW, ...fields,
})
const created = (scopes: string[], limits: KeyLimits, expires_at: string | null) => [new ApiKeyCreated({
  key_id: 'new', org_id: 'o1', name: 'new', key_hash: 'hash-new', key_prefix: 'sk_y', scopes, limits, expires_at, created_at: NOW,
})]
const exceeds = (field: string) => ({ _tag: 'Forbidden', code: 'key_exceeds_creator', details: [{ field, code: `exceeds_creator_${field}` }] })

t.test('a key creates keys only within itself', async () => {
  given([orgCreated, manager]).when(create({ scopes: ['jobs.read', 'jobs.create'] }))
    .then({ _tag: 'Forbidden', code: 'key_exceeds_creator', details: [{ field: 'scopes', message: /jobs\.create/ }] }, 'a scope the creator lacks is refused, naming it')
  given([orgCreated, manager]).when(create({ limits: { rate_limit_rpm: 101 } })).then(exceeds('rate_limit_rpm'), 'a higher rate limit is refused')
  given([orgCreated, manager]).when(create({ limits: { daily_quota: 1001 } })).then(exceeds('daily_quota'), 'a higher daily quota is refused')
  given([orgCreated, manager]).when(create({ limits: { max_concurrent_jobs: null } })).then(exceeds('max_concurrent_jobs'), 'no concurrency cap under a capped creator is refused')
  given([orgCreated, manager]).when(create({ limits: { max_concurrent_jobs: 3 } })).then(exceeds('max_concurrent_jobs'), 'a higher concurrency cap is refused')
  given([orgCreated, manager]).when(create({ limits: { enforcement_mode: 'observe' } })).then(exceeds('enforcement_mode'), 'observe mode under a blocked creator is refused')
  given([orgCreated, admin]).when(create({ creator_key_id: 'admin', limits: { enforcement_mode: 'observe' } }))
    .then(created(['jobs.read'], { ...open, enforcement_mode: 'observe' }, null), 'a blocked creator holding org.manage may create an observe key')
  given([orgCreated, manager]).when(create({ expires_at: null })).then(exceeds('expires_at'), 'a key that never expires under an expiring creator is refused')
  given([orgCreated, manager]).when(create({ expires_at: '2031-01-01T00:00:00.000Z' })).then(exceeds('expires_at'), 'a later expiry is refused')
  given([orgCreated, manager]).when(create({ limits: { ip_allowlist: [] } })).then(exceeds('ip_allowlist'), 'no IP restriction under a restricted creator is refused')
  given([orgCreated, manager]).when(create({ limits: { ip_allowlist: ['10.1.0.0/16', '192.0.2.1'] } })).then(exceeds('ip_allowlist'), 'an address outside the creator list is refused')
  given([orgCreated, manager]).when(create({ limits: { ip_allowlist: ['10.0.0.0/7'] } })).then(exceeds('ip_allowlist'), 'a range larger than the creator range is refused')
  given([orgCreated, manager]).when(create({ scopes: ['org.manage'], limits: { rate_limit_rpm: 1000, daily_quota: 2000 } }))
    .then({ _tag: 'Forbidden', details: [{ field: 'scopes' }, { field: 'rate_limit_rpm' }, { field: 'daily_quota' }] }, 'every wider field is named')
})

t.test('omitted fields default to the narrower of the standard default and the creator', async () => {
  given([orgCreated, manager]).when(create({}))
    .then(created(['jobs.read'], { rate_limit_rpm: 100, daily_quota: 1000, max_concurrent_jobs: 2, enforcement_mode: 'block', ip_allowlist: ['10.0.0.0/8'] }, EXPIRY), 'a narrow creator passes its own limits on')
  given([orgCreated, admin]).when(create({ creator_key_id: 'admin' })).then(created(['jobs.read'], open, null), 'an unrestricted creator gives the standard defaults')
  given([orgCreated, manager]).when(create({ limits: { rate_limit_rpm: 50, max_concurrent_jobs: 1, ip_allowlist: ['10.2.3.4', '10.9.0.0/16'] }, expires_at: '2029-01-01T00:00:00.000Z' }))
    .then(created(['jobs.read'], { rate_limit_rpm: 50, daily_quota: 1000, max_concurrent_jobs: 1, enforcement_mode: 'block', ip_allowlist: ['10.2.3.4', '10.9.0.0/16'] }, '2029-01-01T00:00:00.000Z'), 'narrower values are kept')
  given([orgCreated]).when(create({ creator_key_id: undefined, scopes: ['org.manage'], limits: { rate_limit_rpm: 100_000 } }))
    .then(created(['org.manage'], { ...open, rate_limit_rpm: 100_000 }, null), 'without a creator key (operators, account users) nothing bounds the key')
})

t.test('a revoked or unknown key creates nothing', async () => {
  const revoked = new ApiKeyRevoked({ key_id: 'manager', org_id: 'o1', revoked_at: NOW })
  given([orgCreated, manager, revoked]).when(create({})).then({ _tag: 'Unauthenticated', code: 'invalid_api_key' }, 'a revoked creator')
  given([orgCreated]).when(create({})).then({ _tag: 'Unauthenticated', code: 'invalid_api_key' }, 'an unknown creator')
})

t.test('a key revokes only keys within itself', async () => {
  const revoke = (key_id: string, revoker_key_id?: string): OrgCommand => ({ _tag: 'RevokeApiKey', org_id: 'o1', key_id, revoker_key_id, now: NOW })
  const narrow = keyCreated('narrow', ['jobs.read'], { rate_limit_rpm: 10, daily_quota: 10, max_concurrent_jobs: 1, ip_allowlist: ['10.0.0.1'] }, EXPIRY)
  given([orgCreated, manager, admin]).when(revoke('admin', 'manager')).then({ _tag: 'Forbidden', code: 'key_exceeds_creator' }, 'a narrow key cannot revoke a wider one')
  given([orgCreated, manager, narrow]).when(revoke('narrow', 'manager')).then([new ApiKeyRevoked({ key_id: 'narrow', org_id: 'o1', revoked_at: NOW })], 'a narrower key can be revoked')
  given([orgCreated, manager]).when(revoke('manager', 'manager')).then([new ApiKeyRevoked({ key_id: 'manager', org_id: 'o1', revoked_at: NOW })], 'a key can revoke itself')
  given([orgCreated, manager, admin]).when(revoke('manager', 'admin')).then([new ApiKeyRevoked({ key_id: 'manager', org_id: 'o1', revoked_at: NOW })], 'a wider key revokes a narrower one')
  given([orgCreated, manager, admin]).when(revoke('admin')).then([new ApiKeyRevoked({ key_id: 'admin', org_id: 'o1', revoked_at: NOW })], 'operators revoke any key')
})

t.test('IP entries within IP entries', async (t) => {
  t.ok(ruleWithin('10.1.2.3', '10.0.0.0/8'))
  t.ok(ruleWithin('10.1.0.0/16', '10.0.0.0/8'))
  t.notOk(ruleWithin('10.0.0.0/7', '10.0.0.0/8'))
  t.notOk(ruleWithin('11.0.0.1', '10.0.0.0/8'))
  t.ok(ruleWithin('::ffff:10.0.0.1', '10.0.0.0/8'), 'IPv4-mapped IPv6 is the IPv4 address')
  t.notOk(ruleWithin('::1', '127.0.0.1'), 'families never contain each other')
  t.ok(ruleWithin('2001:db8:1::/48', '2001:db8::/32'))
  t.notOk(ruleWithin('2001:db8::/16', '2001:db8::/32'))
  t.ok(allowlistWithin(['1.2.3.4'], []), 'an empty outer list allows everything')
  t.notOk(allowlistWithin([], ['1.2.3.4']), 'an empty inner list allows everything, so it is wider')
})
