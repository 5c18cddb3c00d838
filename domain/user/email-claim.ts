import { Either } from 'effect'
import type { Decider } from '../decider.js'
import { StateConflict } from '../errors.js'
import { EmailClaimed, EmailClaimReleased, type EmailClaimEvent } from './events.js'

export type EmailClaimState =
  | { readonly claimed: false }
  | { readonly claimed: true; readonly user_id: string; readonly claimed_at: string }

export type EmailClaimCommand =
  | { readonly _tag: 'ClaimEmail'; readonly email_hash: string; readonly user_id: string; readonly now: string }
  | { readonly _tag: 'ReleaseEmailClaim'; readonly email_hash: string; readonly user_id: string; readonly now: string }

/**
 * One address, one user: a second claim by another user is `email_already_used`; the same user's claim is a no-op.
 * Only the claiming user's registration releases a claim (anyone else's release records nothing), and a released
 * address is free to claim again.
 */
export const emailClaimDecider: Decider<EmailClaimCommand, EmailClaimEvent, EmailClaimState, StateConflict> = {
  initialState: { claimed: false },
  evolve: (_state, event) => {
    switch (event._tag) {
      case 'EmailClaimed':
        return { claimed: true, user_id: event.user_id, claimed_at: event.claimed_at }
      case 'EmailClaimReleased':
        return { claimed: false }
    }
  },
  decide: (command, state) => {
    switch (command._tag) {
      case 'ClaimEmail':
        if (!state.claimed) return Either.right([new EmailClaimed({ email_hash: command.email_hash, user_id: command.user_id, claimed_at: command.now })])
        if (state.user_id === command.user_id) return Either.right([])
        return Either.left(new StateConflict({ code: 'email_already_used', message: 'this e-mail address is already registered' }))
      case 'ReleaseEmailClaim':
        if (!state.claimed || state.user_id !== command.user_id) return Either.right([])
        return Either.right([new EmailClaimReleased({ email_hash: command.email_hash, user_id: command.user_id, released_at: command.now })])
    }
  },
}
