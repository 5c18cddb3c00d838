import { Schema } from 'effect'
import { fieldError, ValidationFailed } from '../errors.js'
import { placeQuotaDecider } from '../place-quota.js'

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

export const webhookEndpointQuotaDecider = placeQuotaDecider<WebhookEndpointQuotaCommand, WebhookEndpointQuotaEvent>({
  limit: MAX_WEBHOOK_ENDPOINTS_PER_ORG,
  placeOf: (command) => command.endpoint_id,
  eventPlace: (event) => ({ place: event.endpoint_id, claimed: event._tag === 'WebhookEndpointPlaceClaimed' }),
  heldElsewhere: (command) => command.existing,
  claimed: ({ org_id, endpoint_id, now }) => new WebhookEndpointPlaceClaimed({ org_id, endpoint_id, at: now }),
  released: ({ org_id, endpoint_id, now }) => new WebhookEndpointPlaceReleased({ org_id, endpoint_id, at: now }),
  full: () => new ValidationFailed({ errors: [fieldError('url', 'webhook_endpoint_limit_reached', `an organization may have at most ${MAX_WEBHOOK_ENDPOINTS_PER_ORG} webhook endpoints; delete one first`)] }),
})
