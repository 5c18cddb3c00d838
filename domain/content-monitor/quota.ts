import { fieldError, ValidationFailed } from '../errors.js'
import { placeQuotaDecider } from '../place-quota.js'
import { ContentMonitorPlaceClaimed, ContentMonitorPlaceReleased, type ContentMonitorCreation, type ContentMonitorQuotaEvent } from './events.js'
import { MAX_ACTIVE_CONTENT_MONITORS } from './limits.js'

export type ContentMonitorQuotaCommand =
  | { readonly _tag: 'ClaimPlace'; readonly user_id: string; readonly monitor_id: string; readonly now: string; readonly creation?: ContentMonitorCreation }
  | { readonly _tag: 'ReleasePlace'; readonly user_id: string; readonly monitor_id: string; readonly now: string }

/** The ids of the user's active monitors. Claims are appended with the expected revision: concurrent creates cannot overshoot. */
export const contentMonitorQuotaDecider = placeQuotaDecider<ContentMonitorQuotaCommand, ContentMonitorQuotaEvent>({
  limit: MAX_ACTIVE_CONTENT_MONITORS,
  placeOf: (command) => command.monitor_id,
  eventPlace: (event) => ({ place: event.monitor_id, claimed: event._tag === 'ContentMonitorPlaceClaimed' }),
  claimed: ({ user_id, monitor_id, now, creation }) => new ContentMonitorPlaceClaimed({ user_id, monitor_id, at: now, ...(creation ? { creation } : {}) }),
  released: ({ user_id, monitor_id, now }) => new ContentMonitorPlaceReleased({ user_id, monitor_id, at: now }),
  full: () => new ValidationFailed({ errors: [fieldError('status', 'monitor_limit_reached', `at most ${MAX_ACTIVE_CONTENT_MONITORS} active content monitors per user`)] }),
})
