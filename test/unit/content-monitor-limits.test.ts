import t from 'tap'
import { ContentMonitorPlaceClaimed, ContentMonitorPlaceReleased } from '../../domain/content-monitor/events.js'
import { MAX_ACTIVE_CONTENT_MONITORS } from '../../domain/content-monitor/limits.js'
import { contentMonitorQuotaDecider, type ContentMonitorQuotaCommand } from '../../domain/content-monitor/quota.js'
import { validateContentMonitorChanges } from '../../domain/content-monitor/request.js'
import { scenario } from '../helpers/given-when-then.js'

// SPEC 8's content monitor limits: 50 active monitors per user (the quota decider, one stream per user, claims
// appended with the expected revision), a frequency of 5 to 1440 minutes (the request's rule).

const given = scenario(t, contentMonitorQuotaDecider)
const NOW = '2026-05-01T12:00:00.000Z'
const claim = (monitor_id: string): ContentMonitorQuotaCommand => ({ _tag: 'ClaimPlace', user_id: 'u1', monitor_id, now: NOW })
const claimed = (monitor_id: string) => new ContentMonitorPlaceClaimed({ user_id: 'u1', monitor_id, at: NOW })
const places = (n: number) => Array.from({ length: n }, (_, i) => claimed(`m${i}`))

t.equal(MAX_ACTIVE_CONTENT_MONITORS, 50)
given(places(49)).when(claim('new')).then([claimed('new')], 'the 50th active monitor takes a place')
given(places(50)).when(claim('new')).then({ _tag: 'ValidationFailed', errors: [{ field: 'status', code: 'monitor_limit_reached' }] }, 'no 51st (422)')
given(places(50)).when(claim('m3')).then([], 'a monitor holding a place claims nothing again')
given([...places(50), new ContentMonitorPlaceReleased({ user_id: 'u1', monitor_id: 'm3', at: NOW })]).when(claim('new'))
  .then([claimed('new')], 'a released place (deleted or disabled monitor) is free again')
given([claimed('m1')]).when({ _tag: 'ReleasePlace', user_id: 'u1', monitor_id: 'm1', now: NOW })
  .then([new ContentMonitorPlaceReleased({ user_id: 'u1', monitor_id: 'm1', at: NOW })], 'a place is released')
given([]).when({ _tag: 'ReleasePlace', user_id: 'u1', monitor_id: 'm1', now: NOW }).then([], 'releasing no place records nothing')

for (const [minutes, ok] of [[4, false], [5, true], [1440, true], [1441, false], [7.5, false]] as const) {
  const checked = validateContentMonitorChanges({ frequencyMinutes: minutes })
  t.equal(checked.ok, ok, `frequencyMinutes ${minutes}: ${ok ? 'accepted' : 'invalid'}`)
}
