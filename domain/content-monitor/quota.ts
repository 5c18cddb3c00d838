import { Either } from 'effect'
import type { Decider } from '../decider.js'
import { fieldError, ValidationFailed } from '../errors.js'
import { ContentMonitorPlaceClaimed, ContentMonitorPlaceReleased, type ContentMonitorCreation, type ContentMonitorQuotaEvent } from './events.js'
import { MAX_ACTIVE_CONTENT_MONITORS } from './limits.js'

export type ContentMonitorQuotaCommand =
  | { readonly _tag: 'ClaimPlace'; readonly user_id: string; readonly monitor_id: string; readonly now: string; readonly creation?: ContentMonitorCreation }
  | { readonly _tag: 'ReleasePlace'; readonly user_id: string; readonly monitor_id: string; readonly now: string }

/** The ids of the user's active monitors. Claims are appended with the expected revision: concurrent creates cannot overshoot. */
export const contentMonitorQuotaDecider: Decider<ContentMonitorQuotaCommand, ContentMonitorQuotaEvent, ReadonlySet<string>, ValidationFailed> = {
  initialState: new Set(),
  evolve: (state, event) => {
    const next = new Set(state)
    if (event._tag === 'ContentMonitorPlaceClaimed') next.add(event.monitor_id)
    else next.delete(event.monitor_id)
    return next
  },
  decide: (command, state) => {
    const { user_id, monitor_id, now } = command
    if (command._tag === 'ReleasePlace') return Either.right(state.has(monitor_id) ? [new ContentMonitorPlaceReleased({ user_id, monitor_id, at: now })] : [])
    if (state.has(monitor_id)) return Either.right([])
    if (state.size >= MAX_ACTIVE_CONTENT_MONITORS) {
      return Either.left(new ValidationFailed({ errors: [fieldError('status', 'monitor_limit_reached', `at most ${MAX_ACTIVE_CONTENT_MONITORS} active content monitors per user`)] }))
    }
    return Either.right([new ContentMonitorPlaceClaimed({ user_id, monitor_id, at: now, ...(command.creation ? { creation: command.creation } : {}) })])
  },
}
