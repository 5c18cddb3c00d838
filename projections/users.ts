import type { UserRole } from '../domain/user/roles.js'
import { emailHash } from '../domain/user/identity.js'
import { collection, defineProjection, updateDoc, type Stored } from './projection.js'

/** What the account API shows of a user. Never the password hash or any token hash. */
export type UserDoc = Stored<{
  readonly user_id: string
  readonly email: string
  readonly org_id: string
  readonly role: UserRole
  readonly is_verified: boolean
  readonly created_at: string
  readonly verified_at: string | null
}>

/** Keyed by the SHA-256 of the lower-cased e-mail: finding a user by address is one lookup. */
export type UserEmailDoc = Stored<{ readonly user_id: string }>

export const USERS = collection<UserDoc>('users')
export const USER_EMAILS = collection<UserEmailDoc>('user_emails')

export const usersProjection = defineProjection({
  name: 'projection.users',
  categories: ['user'],
  collections: [USERS.name, USER_EMAILS.name],
  // An organization's users: its members' content monitors, `cli user list --org`.
  indexes: [{ collection: USERS.name, fields: [['org_id', 1]] }],
  // Every document is written by one user's stream only, so users can be projected side by side.
  concurrency: 8,
  ordering: 'stream',
  fold: (event, envelope, view) => {
    switch (event._tag) {
      case 'UserRegistered':
        updateDoc(view, USERS, event.user_id, envelope, () => ({
          user_id: event.user_id, email: event.email, org_id: event.org_id, role: event.role ?? 'owner', is_verified: false, created_at: event.registered_at, verified_at: null,
        }))
        return updateDoc(view, USER_EMAILS, emailHash(event.email), envelope, () => ({ user_id: event.user_id }))
      case 'UserVerified':
        return updateDoc(view, USERS, event.user_id, envelope, (doc) => doc && { ...doc, is_verified: true, verified_at: event.verified_at })
      default:
        return
    }
  },
})
