import t from 'tap'
import { ContentMonitorPlaceClaimed, ContentMonitorPlaceReleased } from '../../domain/content-monitor/events.js'
import { MAX_ACTIVE_CONTENT_MONITORS } from '../../domain/content-monitor/limits.js'
import { contentMonitorQuotaDecider } from '../../domain/content-monitor/quota.js'
import {
  MAX_WEBHOOK_ENDPOINTS_PER_ORG, webhookEndpointQuotaDecider, WebhookEndpointPlaceClaimed, WebhookEndpointPlaceReleased,
} from '../../domain/webhook/endpoint-quota.js'
import { scenario } from '../helpers/given-when-then.js'

// One place-quota decider (domain/place-quota.ts) behind both count limits: same claims, releases and refusals.
const now = '2026-11-01T00:00:00.000Z'

t.test('webhook endpoints per organization', async (t) => {
  const given = scenario(t, webhookEndpointQuotaDecider)
  const claimed = (i: number) => new WebhookEndpointPlaceClaimed({ org_id: 'o1', endpoint_id: `e${i}`, at: now })
  const full = Array.from({ length: MAX_WEBHOOK_ENDPOINTS_PER_ORG }, (_, i) => claimed(i))
  const claim = (id: string, existing: string[] = []) => ({ _tag: 'ClaimPlace' as const, org_id: 'o1', endpoint_id: id, existing, now })
  given(full.slice(1)).when(claim('new')).then([new WebhookEndpointPlaceClaimed({ org_id: 'o1', endpoint_id: 'new', at: now })], 'the last place is claimed')
  given(full).when(claim('new')).then({ _tag: 'ValidationFailed', errors: [{ field: 'url', code: 'webhook_endpoint_limit_reached' }] }, 'none is left: 422')
  given(full.slice(1)).when(claim('new', ['old-1'])).then('ValidationFailed', 'endpoints created before claims count too')
  given(full.slice(1)).when(claim('new', ['e1', 'e2'])).then([new WebhookEndpointPlaceClaimed({ org_id: 'o1', endpoint_id: 'new', at: now })], 'an endpoint both claimed and shown counts once')
  given(full).when(claim('e3')).then([], 'a place already held: nothing recorded')
  given(full).when({ _tag: 'ReleasePlace', org_id: 'o1', endpoint_id: 'e3', now }).then([new WebhookEndpointPlaceReleased({ org_id: 'o1', endpoint_id: 'e3', at: now })], 'released')
  given([...full, new WebhookEndpointPlaceReleased({ org_id: 'o1', endpoint_id: 'e3', at: now })]).when(claim('new')).then([new WebhookEndpointPlaceClaimed({ org_id: 'o1', endpoint_id: 'new', at: now })], 'a released place is free again')
  given([]).when({ _tag: 'ReleasePlace', org_id: 'o1', endpoint_id: 'e9', now }).then([], 'releasing a free place records nothing')
})

t.test('active content monitors per user', async (t) => {
  const given = scenario(t, contentMonitorQuotaDecider)
  const claimed = (i: number) => new ContentMonitorPlaceClaimed({ user_id: 'u1', monitor_id: `m${i}`, at: now })
  const full = Array.from({ length: MAX_ACTIVE_CONTENT_MONITORS }, (_, i) => claimed(i))
  const claim = (id: string) => ({ _tag: 'ClaimPlace' as const, user_id: 'u1', monitor_id: id, now })
  given(full.slice(1)).when(claim('new')).then([new ContentMonitorPlaceClaimed({ user_id: 'u1', monitor_id: 'new', at: now })], 'the last place is claimed')
  given(full).when(claim('new')).then({ _tag: 'ValidationFailed', errors: [{ field: 'status', code: 'monitor_limit_reached' }] }, 'none is left: 422')
  given(full).when(claim('m7')).then([], 'a place already held: nothing recorded')
  given(full).when({ _tag: 'ReleasePlace', user_id: 'u1', monitor_id: 'm7', now }).then([new ContentMonitorPlaceReleased({ user_id: 'u1', monitor_id: 'm7', at: now })], 'released')
})
