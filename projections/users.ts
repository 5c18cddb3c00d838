import { Effect } from 'effect'
import { emailHash } from '../domain/user/identity.js'
import type { Projection } from './projection.js'
import { updateDoc } from './projection.js'

/** What the account API shows of a user. Never the password hash or any token hash. */
export const USERS = 'users'
/** Keyed by the SHA-256 of the lower-cased e-mail: finding a user by address is one lookup. */
export const USER_EMAILS = 'user_emails'

export const usersProjection: Projection = {
  name: 'projection.users',
  categories: ['user'],
  collections: [USERS, USER_EMAILS],
  // Every document is written by one user's stream only, so users can be projected side by side.
  concurrency: 8,
  ordering: 'stream',
  apply: (event) => {
    const d = event.data as Record<string, unknown>
    switch (event.type) {
      case 'UserRegistered':
        return Effect.zipRight(
          updateDoc(USERS, d.user_id as string, event, () => ({
            user_id: d.user_id, email: d.email, org_id: d.org_id, is_verified: false, created_at: d.registered_at, verified_at: null,
          })),
          updateDoc(USER_EMAILS, emailHash(d.email as string), event, () => ({ user_id: d.user_id })),
        )
      case 'UserVerified':
        return updateDoc(USERS, d.user_id as string, event, (doc) => doc && { ...doc, is_verified: true, verified_at: d.verified_at })
      default:
        return Effect.void
    }
  },
}
