import { Either } from 'effect'
import type { Decider } from './decider.js'
import type { ValidationFailed } from './errors.js'

type Claim<C> = Extract<C, { readonly _tag: 'ClaimPlace' }>
type Release<C> = Extract<C, { readonly _tag: 'ReleasePlace' }>

/**
 * A count limit kept in one stream of places (`ClaimPlace` before creating a thing, `ReleasePlace` when it goes):
 * claims are appended with the expected revision, so concurrent creations cannot overshoot. Each limit (webhook
 * endpoints per organization, active content monitors per user) names its commands, events and refusal.
 */
export interface PlaceQuota<C extends { readonly _tag: 'ClaimPlace' | 'ReleasePlace' }, E> {
  readonly limit: number
  /** The place (thing id) a command names. */
  readonly placeOf: (command: C) => string
  /** The place an event names, and whether the event claims it (else it releases it). */
  readonly eventPlace: (event: E) => { readonly place: string; readonly claimed: boolean }
  /** Places held without a claim that count too (things created before claims were recorded). */
  readonly heldElsewhere?: (command: Claim<C>) => readonly string[]
  readonly claimed: (command: Claim<C>) => E
  readonly released: (command: Release<C>) => E
  /** The 422 when no place is left. */
  readonly full: () => ValidationFailed
}

/** The places held (ids); a claim of a held place and a release of a free one record nothing. */
export const placeQuotaDecider = <C extends { readonly _tag: 'ClaimPlace' | 'ReleasePlace' }, E>(
  quota: PlaceQuota<C, E>,
): Decider<C, E, ReadonlySet<string>, ValidationFailed> => ({
  initialState: new Set(),
  evolve: (state, event) => {
    const { place, claimed } = quota.eventPlace(event)
    const next = new Set(state)
    if (claimed) next.add(place)
    else next.delete(place)
    return next
  },
  decide: (command, state) => {
    const place = quota.placeOf(command)
    if (command._tag === 'ReleasePlace') return Either.right(state.has(place) ? [quota.released(command as Release<C>)] : [])
    if (state.has(place)) return Either.right([])
    const claim = command as Claim<C>
    const held = new Set([...state, ...(quota.heldElsewhere?.(claim) ?? [])])
    if (held.size >= quota.limit) return Either.left(quota.full())
    return Either.right([quota.claimed(claim)])
  },
})
