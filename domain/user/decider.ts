import { Either } from 'effect'
import type { Decider } from '../decider.js'
import { StateConflict, ValidationFailed, fieldError } from '../errors.js'
import { isEmail, normalizeEmail } from './email-address.js'
import { InvalidVerificationToken } from './errors.js'
import type { UserRole } from './roles.js'
import { UserRegistered, UserVerified, VerificationEmailSent, VerificationTokenIssued, type UserEvent } from './events.js'

export interface PendingToken {
  readonly token_hash: string
  readonly expires_at: string
}

export type UserState =
  | { readonly exists: false }
  | {
    readonly exists: true
    readonly user_id: string
    readonly email: string
    readonly password_hash: string
    readonly org_id: string
    readonly registered_at: string
    readonly verified: boolean
    /** The one token that can still verify the address; null once verified. */
    readonly pending: PendingToken | null
    /** Tokens whose e-mail was sent (the mailer's idempotency record). */
    readonly mailed: ReadonlySet<string>
  }

/** Hashes arrive already computed: the decider never sees a password or a token in clear. */
export type UserCommand =
  | {
    readonly _tag: 'RegisterUser'; readonly user_id: string; readonly email: string; readonly password_hash: string; readonly org_id: string
    readonly token_hash: string; readonly token_expires_at: string; readonly now: string
  }
  /** An operator adds a user to an existing organization: verified at once (the operator vouches for the address). */
  | {
    readonly _tag: 'AddUser'; readonly user_id: string; readonly email: string; readonly password_hash: string; readonly org_id: string
    readonly role: UserRole; readonly now: string
  }
  | { readonly _tag: 'VerifyEmail'; readonly user_id: string; readonly token_hash: string; readonly now: string }
  | { readonly _tag: 'RecordVerificationEmailSent'; readonly user_id: string; readonly token_hash: string; readonly message_id: string; readonly now: string }

/** Why a user cannot be recorded: the stream has one already, or the address is not in its normalized form. */
const refuseRegistration = (command: { readonly email: string }, state: UserState): StateConflict | ValidationFailed | null => {
  if (state.exists) return new StateConflict({ code: 'user_exists', message: 'user already exists' })
  if (!isEmail(command.email) || command.email !== normalizeEmail(command.email)) {
    return new ValidationFailed({ errors: [fieldError('email', 'invalid_email', 'email must be a normalized e-mail address')] })
  }
  return null
}

export type UserError = StateConflict | ValidationFailed | InvalidVerificationToken

export const userDecider: Decider<UserCommand, UserEvent, UserState, UserError> = {
  initialState: { exists: false },
  evolve: (state, event) => {
    switch (event._tag) {
      case 'UserRegistered':
        return {
          exists: true, user_id: event.user_id, email: event.email, password_hash: event.password_hash, org_id: event.org_id,
          registered_at: event.registered_at, verified: false, pending: null, mailed: new Set(),
        }
      case 'VerificationTokenIssued':
        return state.exists && !state.verified ? { ...state, pending: { token_hash: event.token_hash, expires_at: event.expires_at } } : state
      case 'VerificationEmailSent':
        return state.exists ? { ...state, mailed: new Set(state.mailed).add(event.token_hash) } : state
      case 'UserVerified':
        return state.exists ? { ...state, verified: true, pending: null } : state
    }
  },
  decide: (command, state) => {
    switch (command._tag) {
      case 'RegisterUser': {
        const refused = refuseRegistration(command, state)
        if (refused) return Either.left(refused)
        return Either.right([
          new UserRegistered({
            user_id: command.user_id, email: command.email, password_hash: command.password_hash, org_id: command.org_id, registered_at: command.now,
          }),
          new VerificationTokenIssued({ user_id: command.user_id, token_hash: command.token_hash, expires_at: command.token_expires_at, issued_at: command.now }),
        ])
      }
      case 'AddUser': {
        const refused = refuseRegistration(command, state)
        if (refused) return Either.left(refused)
        return Either.right([
          new UserRegistered({
            user_id: command.user_id, email: command.email, password_hash: command.password_hash, org_id: command.org_id, registered_at: command.now, role: command.role,
          }),
          new UserVerified({ user_id: command.user_id, verified_at: command.now }),
        ])
      }
      case 'VerifyEmail': {
        if (!state.exists) return Either.left(new InvalidVerificationToken({ reason: 'unknown' }))
        if (state.verified) return Either.left(new InvalidVerificationToken({ reason: 'used' }))
        if (!state.pending || state.pending.token_hash !== command.token_hash) return Either.left(new InvalidVerificationToken({ reason: 'unknown' }))
        if (Date.parse(command.now) >= Date.parse(state.pending.expires_at)) return Either.left(new InvalidVerificationToken({ reason: 'expired' }))
        return Either.right([new UserVerified({ user_id: command.user_id, verified_at: command.now })])
      }
      case 'RecordVerificationEmailSent': {
        if (!state.exists || state.mailed.has(command.token_hash)) return Either.right([])
        return Either.right([new VerificationEmailSent({ user_id: command.user_id, token_hash: command.token_hash, message_id: command.message_id, sent_at: command.now })])
      }
    }
  },
}
