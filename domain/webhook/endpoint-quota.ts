import { Either, Schema } from 'effect'
import type { Decider } from '../decider.js'
import { fieldError, ValidationFailed } from '../errors.js'

/** Webhook endpoints an organization may hold (not deleted): every event is sent once per subscribed endpoint. */
export const MAX_WEBHOOK_ENDPOINTS_PER_ORG = 20

/**
 * The endpoints an organization holds, in one stream `webhook-endpoint-quota-<org>`: creating an endpoint first
 * claims a place here with the expected revision, so two concurrent creations cannot both take the last place.
 */
export class WebhookEndpointPlaceClaimed extends Schema.TaggedClass<WebhookEndpointPlaceClaimed>()('WebhookEndpointPlaceClaimed', {
  org_id: Schema.String,
  endpoint_id: Schema.String,
  at: Schema.String,
}) {}

export class WebhookEndpointPlaceReleased extends Schema.TaggedClass<WebhookEndpointPlaceReleased>()('WebhookEndpointPlaceReleased', {
  org_id: Schema.String,
  endpoint_id: Schema.String,
  at: Schema.String,
}) {}

export const WebhookEndpointQuotaEvent = Schema.Union(WebhookEndpointPlaceClaimed, WebhookEndpointPlaceReleased)
export type WebhookEndpointQuotaEvent = typeof WebhookEndpointQuotaEvent.Type

export type WebhookEndpointQuotaCommand =
  /**
   * `existing`: the organization's endpoints the read model shows; those created before places were claimed count
   * too (a place is claimed only by endpoints created since).
   */
  | { readonly _tag: 'ClaimPlace'; readonly org_id: string; readonly endpoint_id: string; readonly existing: readonly string[]; readonly now: string }
  | { readonly _tag: 'ReleasePlace'; readonly org_id: string; readonly endpoint_id: string; readonly now: string }

export const webhookEndpointQuotaDecider: Decider<WebhookEndpointQuotaCommand, WebhookEndpointQuotaEvent, ReadonlySet<string>, ValidationFailed> = {
  initialState: new Set(),
  evolve: (state, event) => {
    const next = new Set(state)
    if (event._tag === 'WebhookEndpointPlaceClaimed') next.add(event.endpoint_id)
    else next.delete(event.endpoint_id)
    return next
  },
  decide: (command, state) => {
    const { org_id, endpoint_id, now } = command
    if (command._tag === 'ReleasePlace') return Either.right(state.has(endpoint_id) ? [new WebhookEndpointPlaceReleased({ org_id, endpoint_id, at: now })] : [])
    if (state.has(endpoint_id)) return Either.right([])
    if (new Set([...state, ...command.existing]).size >= MAX_WEBHOOK_ENDPOINTS_PER_ORG) {
      return Either.left(new ValidationFailed({ errors: [fieldError('url', 'webhook_endpoint_limit_reached', `an organization may have at most ${MAX_WEBHOOK_ENDPOINTS_PER_ORG} webhook endpoints; delete one first`)] }))
    }
    return Either.right([new WebhookEndpointPlaceClaimed({ org_id, endpoint_id, at: now })])
  },
}
