import { Either } from 'effect'
import type { Decider } from '../decider.js'
import { StateConflict } from '../errors.js'
import { EmailClaimed, type EmailClaimEvent } from './events.js'

export type EmailClaimState =
  | { readonly claimed: false }
  | { readonly claimed: true; readonly user_id: string; readonly claimed_at: string }

export type EmailClaimCommand = { readonly _tag: 'ClaimEmail'; readonly email_hash: string; readonly user_id: string; readonly now: string }

/** One address, one user: a second claim by another user is `email_already_used`; the same user's claim is a no-op. */
export const emailClaimDecider: Decider<EmailClaimCommand, EmailClaimEvent, EmailClaimState, StateConflict> = {
  initialState: { claimed: false },
  evolve: (_state, event) => ({ claimed: true, user_id: event.user_id, claimed_at: event.claimed_at }),
  decide: (command, state) => {
    if (!state.claimed) return Either.right([new EmailClaimed({ email_hash: command.email_hash, user_id: command.user_id, claimed_at: command.now })])
    if (state.user_id === command.user_id) return Either.right([])
    return Either.left(new StateConflict({ code: 'email_already_used', message: 'this e-mail address is already registered' }))
  },
}
