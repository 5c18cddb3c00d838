/** The webhook delivery decider given/when/then: every command, and its one rejection. */
import t from 'tap'
import { deliveryDecider, type AttemptResult, type DeliveryCommand } from '../../domain/webhook/delivery-decider.js'
import { WebhookDeliveryAttempted, WebhookDeliveryCancelled, WebhookDeliveryReplayRequested, WebhookDeliveryScheduled } from '../../domain/webhook/events.js'
import { scenario } from '../helpers/given-when-then.js'

const given = scenario(t, deliveryDecider)
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute)).toISOString()

const delivery = {
  delivery_id: 'd1', endpoint_id: 'e1', org_id: 'o1', event_id: 'evt_d1', type: 'job.completed', source_event_id: 'src-1', scheduled_at: at(0),
  body: JSON.stringify({ event_id: 'evt_d1', type: 'job.completed', created_at: at(0), data: {} }),
}
const result = (minute: number, outcome: AttemptResult['outcome'], next: string | null): AttemptResult => ({
  attempted_at: at(minute), status_code: outcome === 'succeeded' ? 200 : 503, latency_ms: 40, response_excerpt: 'answer', error: null, outcome, next_attempt_at: next,
})
const schedule: DeliveryCommand = { _tag: 'ScheduleDelivery', delivery, now: at(0) }
const attempt = (n: number, minute: number, outcome: AttemptResult['outcome'], next: string | null = null): DeliveryCommand =>
  ({ _tag: 'RecordAttempt', attempt: n, result: result(minute, outcome, next), now: at(minute) })
const cancel: DeliveryCommand = { _tag: 'CancelDelivery', reason: 'endpoint_deleted', now: at(9) }
const replay = (endpointId = 'e1'): DeliveryCommand => ({ _tag: 'ReplayDelivery', delivery_id: 'd1', endpoint_id: endpointId, now: at(30) })

const scheduled = new WebhookDeliveryScheduled(delivery)
const attempted = (n: number, minute: number, outcome: AttemptResult['outcome'], next: string | null = null) =>
  new WebhookDeliveryAttempted({ delivery_id: 'd1', attempt: n, ...result(minute, outcome, next) })
const cancelled = new WebhookDeliveryCancelled({ delivery_id: 'd1', reason: 'endpoint_deleted', cancelled_at: at(9) })
const replayed = new WebhookDeliveryReplayRequested({ delivery_id: 'd1', requested_at: at(30) })
const retrying = attempted(1, 1, 'retrying', at(2))

// ---- ScheduleDelivery ----
given([]).when(schedule).then([scheduled], 'ScheduleDelivery records the delivery')
given([scheduled]).when(schedule).then([], 'ScheduleDelivery of a scheduled delivery (same endpoint and event) records nothing')

// ---- RecordAttempt ----
given([scheduled]).when(attempt(1, 1, 'retrying', at(2))).then([retrying], 'RecordAttempt 1 on a pending delivery records it')
given([scheduled, retrying]).when(attempt(2, 2, 'succeeded')).then([attempted(2, 2, 'succeeded')], 'RecordAttempt 2 after a retrying attempt records it')
given([scheduled, retrying]).when(attempt(1, 1, 'succeeded')).then([], 'an attempt number recorded already (a second dispatcher) is dropped')
given([scheduled]).when(attempt(2, 1, 'succeeded')).then([], 'an attempt number out of turn is dropped')
given([scheduled, attempted(1, 1, 'succeeded')]).when(attempt(2, 2, 'succeeded')).then([], 'no attempt on a delivery that succeeded')
given([scheduled, attempted(1, 1, 'exhausted')]).when(attempt(2, 2, 'succeeded')).then([], 'no attempt on a delivery that failed for good')
given([scheduled, cancelled]).when(attempt(1, 10, 'succeeded')).then([], 'no attempt on a cancelled delivery')
given([]).when(attempt(1, 1, 'succeeded')).then([], 'an attempt on an unknown delivery records nothing')

// ---- CancelDelivery ----
given([scheduled, retrying]).when(cancel).then([cancelled], 'CancelDelivery of a pending delivery records why')
given([scheduled, attempted(1, 1, 'succeeded')]).when(cancel).then([], 'a delivery that ended is not cancelled')
given([scheduled, cancelled]).when(cancel).then([], 'CancelDelivery twice records it once')
given([]).when(cancel).then([], 'CancelDelivery of an unknown delivery records nothing')

// ---- ReplayDelivery ----
given([scheduled, attempted(1, 1, 'exhausted')]).when(replay()).then([replayed], 'ReplayDelivery of a failed delivery opens a fresh retry window')
given([scheduled, attempted(1, 1, 'succeeded')]).when(replay()).then([replayed], 'ReplayDelivery of a delivered one sends it again')
given([scheduled, attempted(1, 1, 'exhausted'), replayed]).when(attempt(2, 31, 'succeeded')).then([attempted(2, 31, 'succeeded')], 'after a replay the next attempt is recorded')
given([scheduled]).when(replay('e2')).then({ _tag: 'NotFound', resource: 'webhook_delivery', id: 'd1' }, 'ReplayDelivery through another endpoint is not found')
given([]).when(replay()).then({ _tag: 'NotFound', resource: 'webhook_delivery', id: 'd1' }, 'ReplayDelivery of an unknown delivery is not found')
