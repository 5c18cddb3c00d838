/**
 * The webhook endpoint decider given/when/then: its life-cycle commands and each rejection (exists, not found,
 * another organization's). The circuit breaker's commands (RecordUnreachable, RecordAnswered) are in
 * webhook-circuit.test.ts.
 */
import t from 'tap'
import { endpointDecider, SECRET_OVERLAP_MS, type EndpointCommand } from '../../domain/webhook/endpoint-decider.js'
import {
  WebhookEndpointCreated, WebhookEndpointDeleted, WebhookEndpointDisabled, WebhookEndpointFailing, WebhookEndpointRecovered, WebhookEndpointUpdated,
  WebhookPingRequested, WebhookSecretRotated,
} from '../../domain/webhook/events.js'
import { scenario } from '../helpers/given-when-then.js'

const given = scenario(t, endpointDecider)
const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 0, minute)).toISOString()
const E = { endpoint_id: 'e1' }

const create: EndpointCommand = {
  _tag: 'CreateEndpoint', ...E, org_id: 'o1', url: 'https://hooks.example.com/a', enabled_events: ['job.completed'], description: 'jobs', secret: 's1', now: at(0),
}
const created = new WebhookEndpointCreated({
  ...E, org_id: 'o1', url: 'https://hooks.example.com/a', enabled_events: ['job.completed'], description: 'jobs', secret: 's1', created_at: at(0),
})
const update = (changes: Extract<EndpointCommand, { _tag: 'UpdateEndpoint' }>['changes'], org = 'o1'): EndpointCommand =>
  ({ _tag: 'UpdateEndpoint', ...E, org_id: org, changes, now: at(1) })
const rotate: EndpointCommand = { _tag: 'RotateSecret', ...E, org_id: 'o1', secret: 's2', now: at(2) }
const ping = (org = 'o1'): EndpointCommand => ({ _tag: 'RequestPing', ...E, org_id: org, now: at(3) })
const remove = (org = 'o1'): EndpointCommand => ({ _tag: 'DeleteEndpoint', ...E, org_id: org, now: at(4) })
const disable: EndpointCommand = { _tag: 'DisableEndpoint', ...E, reason: 'gone', message: 'the receiver answered 410', now: at(5) }
const disabled = new WebhookEndpointDisabled({ ...E, org_id: 'o1', reason: 'gone', message: 'the receiver answered 410', disabled_at: at(5) })
const failure: EndpointCommand = { _tag: 'RecordDeliveryFailure', ...E, now: at(6) }
const failing = new WebhookEndpointFailing({ ...E, since: at(6) })
const success: EndpointCommand = { _tag: 'RecordDeliverySuccess', ...E, now: at(7) }
const deleted = new WebhookEndpointDeleted({ ...E, deleted_at: at(4) })
const NOT_FOUND = { _tag: 'NotFound', resource: 'webhook_endpoint', id: 'e1' } as const

// ---- CreateEndpoint ----
given([]).when(create).then([created], 'CreateEndpoint records the endpoint with its first secret')
given([created]).when(create).then({ _tag: 'StateConflict', code: 'webhook_endpoint_exists' }, 'CreateEndpoint twice conflicts')

// ---- UpdateEndpoint ----
given([created]).when(update({ url: 'https://hooks.example.com/b', enabled: false }))
  .then([new WebhookEndpointUpdated({ ...E, url: 'https://hooks.example.com/b', enabled: false, updated_at: at(1) })], 'UpdateEndpoint records the fields given')
given([created]).when(update({})).then([], 'UpdateEndpoint with no change records nothing')
given([created]).when(update({ enabled: false }, 'o2')).then(NOT_FOUND, 'another organization\'s endpoint is not found')
given([]).when(update({ enabled: false })).then(NOT_FOUND, 'UpdateEndpoint of an unknown endpoint is not found')

// ---- RotateSecret ----
given([created]).when(rotate)
  .then([new WebhookSecretRotated({ ...E, secret: 's2', rotated_at: at(2), previous_valid_until: new Date(Date.parse(at(2)) + SECRET_OVERLAP_MS).toISOString() })],
    'RotateSecret records the new secret; the previous one stays valid for the overlap')
given([created, deleted]).when(rotate).then(NOT_FOUND, 'RotateSecret of a deleted endpoint is not found')

// ---- RequestPing ----
given([created]).when(ping()).then([new WebhookPingRequested({ ...E, org_id: 'o1', requested_at: at(3) })], 'RequestPing records the ping')
given([created]).when(ping('o2')).then(NOT_FOUND, 'RequestPing of another organization\'s endpoint is not found')

// ---- DeleteEndpoint ----
given([created]).when(remove()).then([deleted], 'DeleteEndpoint records the deletion')
given([created, deleted]).when(remove()).then(NOT_FOUND, 'DeleteEndpoint twice: the endpoint is gone')
given([created]).when(remove('o2')).then(NOT_FOUND, 'DeleteEndpoint of another organization\'s endpoint is not found')

// ---- DisableEndpoint ----
given([created]).when(disable).then([disabled], 'DisableEndpoint records why')
given([created, disabled]).when(disable).then([], 'DisableEndpoint of a disabled endpoint records nothing')
given([created, new WebhookEndpointUpdated({ ...E, enabled: false, updated_at: at(1) })]).when(disable).then([], 'nor of one its owner switched off')
given([]).when(disable).then(NOT_FOUND, 'DisableEndpoint of an unknown endpoint is not found')

// ---- RecordDeliveryFailure / RecordDeliverySuccess ----
given([created]).when(failure).then([failing], 'the first failed delivery opens the failure window')
given([created, failing]).when({ ...failure, now: at(8) }).then([], 'later failures keep the window\'s start')
given([created, failing]).when(success).then([new WebhookEndpointRecovered({ ...E, recovered_at: at(7) })], 'a success closes the failure window')
given([created]).when(success).then([], 'a success without failures records nothing')
given([created, failing, new WebhookEndpointUpdated({ ...E, enabled: true, updated_at: at(7) })]).when({ ...failure, now: at(9) })
  .then([new WebhookEndpointFailing({ ...E, since: at(9) })], 'enabling again starts a fresh failure window')
given([created, deleted]).when(failure).then(NOT_FOUND, 'RecordDeliveryFailure on a deleted endpoint is not found')
