import { Effect } from 'effect'
import { NotFound } from '../domain/errors.js'
import { API_KEYS, ORGS } from './orgs.js'
import { findDocs, getDoc } from './projection.js'

export const getOrg = (orgId: string) =>
  Effect.gen(function* () {
    const doc = yield* getDoc(ORGS, orgId)
    if (!doc) return yield* Effect.fail(new NotFound({ resource: 'org', id: orgId }))
    return doc
  })

export const listKeys = (orgId: string) => findDocs(API_KEYS, { org_id: orgId }, { sort: [['created_at', 'asc'], ['key_id', 'asc']] })

export const getKey = (orgId: string, keyId: string) =>
  Effect.gen(function* () {
    const doc = yield* getDoc(API_KEYS, keyId)
    if (!doc || doc.org_id !== orgId) return yield* Effect.fail(new NotFound({ resource: 'api_key', id: keyId }))
    return doc
  })
