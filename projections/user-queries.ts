import { Effect } from 'effect'
import { NotFound } from '../domain/errors.js'
import { emailHash } from '../domain/user/identity.js'
import { findDocs, getDoc } from './projection.js'
import { USER_EMAILS, USERS } from './users.js'

export interface UserView {
  readonly user_id: string
  readonly email: string
  readonly org_id: string
  readonly is_verified: boolean
  readonly created_at: string
}

export const getUser = (userId: string) =>
  Effect.gen(function* () {
    const doc = yield* getDoc(USERS, userId)
    if (!doc) return yield* Effect.fail(new NotFound({ resource: 'user', id: userId }))
    const view: UserView = { user_id: doc.user_id, email: doc.email, org_id: doc.org_id, is_verified: doc.is_verified, created_at: doc.created_at }
    return view
  })

export const findUserByEmail = (email: string) =>
  Effect.gen(function* () {
    const ref = yield* getDoc(USER_EMAILS, emailHash(email))
    return ref ? yield* getUser(ref.user_id) : null
  })

/** The users of an organization, to notify them (a disabled webhook endpoint). */
export const listOrgUsers = (orgId: string) =>
  Effect.map(findDocs(USERS, { org_id: orgId }, { sort: [['created_at', 'asc']] }), (docs) => docs.map((doc) => ({ user_id: doc.user_id, email: doc.email })))
