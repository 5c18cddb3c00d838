import { Effect } from 'effect'
import { NotFound } from '../domain/errors.js'
import { emailHash } from '../domain/user/identity.js'
import { DocumentStore } from '../ports/document-store.js'
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
    const doc = yield* (yield* DocumentStore).get(USERS, userId)
    if (!doc) return yield* Effect.fail(new NotFound({ resource: 'user', id: userId }))
    const view: UserView = {
      user_id: doc.user_id as string, email: doc.email as string, org_id: doc.org_id as string,
      is_verified: doc.is_verified === true, created_at: doc.created_at as string,
    }
    return view
  })

export const findUserByEmail = (email: string) =>
  Effect.gen(function* () {
    const ref = yield* (yield* DocumentStore).get(USER_EMAILS, emailHash(email))
    return ref ? yield* getUser(ref.user_id as string) : null
  })
