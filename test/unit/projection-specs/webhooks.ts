import type { Test } from 'tap'
import { handle, type Timed } from '../../../commands/handle.js'
import type { Decider } from '../../../domain/decider.js'
import { STREAMS, type DomainEvent } from '../../../domain/streams.js'
import { deliveryDecider, type AttemptResult } from '../../../domain/webhook/delivery-decider.js'
import { endpointDecider, type EndpointCommand } from '../../../domain/webhook/endpoint-decider.js'
import type { Doc } from '../../../ports/document-store.js'
import type { RecordedEvent } from '../../../ports/event-store.js'
import { memoryServices, TEST_METADATA } from '../../helpers/memory-services.js'
import type { Documents, ProjectionSpecFile } from '../../helpers/projection-spec.js'

// ---- webhooks: an endpoint updated, its secret rotated, failing and recovering, then deleted; one the receiver
// answers 410 Gone; deliveries succeeded, retried, failed for good, replayed, and cancelled ----

const ORG = 'org-w'
const at = (minute: number) => new Date(Date.UTC(2026, 4, 1, 7, minute)).toISOString()
const SECRETS = ['whsec_first-secret-of-e1', 'whsec_second-secret-of-e1', 'whsec_secret-of-e2']

const CIRCUIT = { threshold: 2, cooldownMs: 60_000, maxCooldownMs: 600_000 }

type WithoutEndpointId<C> = C extends unknown ? Omit<C, 'endpoint_id'> : never

const recordHistory = async (): Promise<readonly RecordedEvent[]> => {
  const { run, events } = memoryServices()
  const command = <C extends Timed, E extends DomainEvent, S, Err>(decider: Decider<C, E, S, Err>, stream: string, actor: string) =>
    (c: C) => run(handle(decider, stream, c, { org_id: ORG, metadata: { ...TEST_METADATA, actor } }))
  const endpoint = (id: string, actor = 'api_key:k1') => (c: WithoutEndpointId<EndpointCommand>) =>
    command(endpointDecider, STREAMS['webhook-endpoint'].stream(id), actor)({ ...c, endpoint_id: id } as EndpointCommand)
  const dispatcher = (id: string) => endpoint(id, 'webhook-dispatcher')
  const delivery = (id: string) => command(deliveryDecider, STREAMS['webhook-delivery'].stream(id), 'webhook-dispatcher')
  const schedule = (id: string, endpointId: string, type: string, minute: number) => delivery(id)({
    _tag: 'ScheduleDelivery',
    delivery: {
      delivery_id: id, endpoint_id: endpointId, org_id: ORG, event_id: `evt-${id}`, type, source_event_id: `src-${id}`, scheduled_at: at(minute),
      body: JSON.stringify({ event_id: `evt-${id}`, type, created_at: at(minute), data: {} }),
    },
    now: at(minute),
  })
  const attempt = (id: string, n: number, minute: number, result: Pick<AttemptResult, 'status_code' | 'error' | 'outcome' | 'next_attempt_at'>) =>
    delivery(id)({ _tag: 'RecordAttempt', attempt: n, result: { attempted_at: at(minute), latency_ms: 40 + n, response_excerpt: `answer ${n}`, ...result }, now: at(minute) })

  await endpoint('e1')({
    _tag: 'CreateEndpoint', org_id: ORG, url: 'https://hooks.example.com/a', enabled_events: ['job.succeeded'], description: 'jobs', secret: SECRETS[0]!, now: at(0),
  })
  await endpoint('e2')({
    _tag: 'CreateEndpoint', org_id: ORG, url: 'https://old.example.com/hook', enabled_events: ['job.failed'], description: null, secret: SECRETS[2]!, now: at(1),
  })
  await endpoint('e1')({ _tag: 'UpdateEndpoint', org_id: ORG, changes: { enabled_events: ['job.succeeded', 'job.failed'], description: null }, now: at(2) })
  await endpoint('e1')({ _tag: 'RequestPing', org_id: ORG, now: at(3) })
  // d1: delivered at once.
  await schedule('d1', 'e1', 'job.succeeded', 4)
  await attempt('d1', 1, 4, { status_code: 200, error: null, outcome: 'succeeded', next_attempt_at: null })
  // A second dispatcher's record of the same attempt is dropped.
  await attempt('d1', 1, 4, { status_code: 500, error: null, outcome: 'retrying', next_attempt_at: at(5) })
  // d2: the receiver fails, the endpoint is failing, the retry succeeds and the endpoint recovers.
  await schedule('d2', 'e1', 'job.failed', 5)
  await attempt('d2', 1, 5, { status_code: 503, error: null, outcome: 'retrying', next_attempt_at: at(10) })
  await dispatcher('e1')({ _tag: 'RecordDeliveryFailure', now: at(5) })
  await endpoint('e1')({ _tag: 'RotateSecret', org_id: ORG, secret: SECRETS[1]!, now: at(8) })
  await attempt('d2', 2, 10, { status_code: 200, error: null, outcome: 'succeeded', next_attempt_at: null })
  await dispatcher('e1')({ _tag: 'RecordDeliverySuccess', now: at(10) })
  // d3: retries run out; the owner replays it and it is delivered.
  await schedule('d3', 'e1', 'job.failed', 11)
  await attempt('d3', 1, 11, { status_code: null, error: 'connection refused', outcome: 'retrying', next_attempt_at: at(12) })
  await attempt('d3', 2, 12, { status_code: null, error: 'connection refused', outcome: 'exhausted', next_attempt_at: null })
  // Two attempts without an answer open e1's circuit (threshold 2); the replay's success below closes it.
  await dispatcher('e1')({ _tag: 'RecordUnreachable', policy: CIRCUIT, now: at(11) })
  await dispatcher('e1')({ _tag: 'RecordUnreachable', policy: CIRCUIT, now: at(12) })
  await delivery('d3')({ _tag: 'ReplayDelivery', delivery_id: 'd3', endpoint_id: 'e1', now: at(20) })
  await attempt('d3', 3, 20, { status_code: 204, error: null, outcome: 'succeeded', next_attempt_at: null })
  await dispatcher('e1')({ _tag: 'RecordAnswered', now: at(20) })
  // e2's receiver stops answering before its 410: its circuit stays open in the document.
  await dispatcher('e2')({ _tag: 'RecordUnreachable', policy: CIRCUIT, now: at(16) })
  await dispatcher('e2')({ _tag: 'RecordUnreachable', policy: CIRCUIT, now: at(17) })
  // e2: the receiver answers 410 Gone: the endpoint is disabled and its other pending delivery cancelled.
  await schedule('d4', 'e2', 'job.failed', 21)
  await schedule('d5', 'e2', 'job.failed', 21)
  await attempt('d4', 1, 21, { status_code: 410, error: null, outcome: 'gone', next_attempt_at: null })
  await dispatcher('e2')({ _tag: 'DisableEndpoint', reason: 'gone', message: 'the receiver answered 410 Gone', now: at(21) })
  await delivery('d5')({ _tag: 'CancelDelivery', reason: 'endpoint_disabled', now: at(22) })
  // e1 is deleted with a delivery still waiting for its retry.
  await schedule('d6', 'e1', 'job.succeeded', 30)
  await attempt('d6', 1, 30, { status_code: 500, error: null, outcome: 'retrying', next_attempt_at: at(31) })
  await endpoint('e1')({ _tag: 'DeleteEndpoint', org_id: ORG, now: at(30) })
  await delivery('d6')({ _tag: 'CancelDelivery', reason: 'endpoint_deleted', now: at(30) })
  return run(events.readAll(0, 10_000))
}

const byId = (docs: readonly Doc[], id: string) => docs.find((d) => d._id === id)

const expectations: Readonly<Record<string, (t: Test, documents: Documents) => void>> = {
  'projection.audit': (t, { audit }) => {
    const types = audit!.map((entry) => entry.type)
    for (const type of ['WebhookEndpointCreated', 'WebhookSecretRotated', 'WebhookDeliveryScheduled', 'WebhookDeliveryAttempted', 'WebhookDeliveryReplayRequested', 'WebhookEndpointDisabled']) {
      t.ok(types.includes(type), `${type} is in the audit trail`)
    }
    t.match(audit!.find((entry) => entry.type === 'WebhookEndpointDisabled'), { actor: 'webhook-dispatcher', detail: { endpoint_id: 'e2', reason: 'gone' } })
    const text = JSON.stringify(audit)
    for (const secret of SECRETS) t.notOk(text.includes(secret), 'no signing secret')
    t.notOk(text.includes('answer 1'), 'no response excerpt')
    t.notOk(audit!.some((entry) => 'body' in (entry.detail as object)), 'no delivery body')
  },
  'projection.webhooks': (t, { webhook_endpoints, webhook_deliveries }) => {
    t.match(byId(webhook_endpoints!, 'e1'), {
      org_id: ORG, url: 'https://hooks.example.com/a', enabled_events: ['job.succeeded', 'job.failed'], description: null,
      enabled: false, deleted: true, disabled_reason: null, secret_rotated_at: at(8), created_at: at(0), updated_at: at(30),
      circuit: { opened_at: null, retry_at: null },
    })
    t.match(byId(webhook_endpoints!, 'e2'), {
      enabled: false, deleted: false, disabled_reason: 'gone', disabled_message: 'the receiver answered 410 Gone', secret_rotated_at: null, updated_at: at(21),
      circuit: { opened_at: at(17), retry_at: at(18) },
    })
    const text = JSON.stringify(webhook_endpoints)
    t.notOk(SECRETS.some((secret) => text.includes(secret)) || text.includes('"secret"'), 'no signing secret in the endpoint documents')
    t.same(webhook_deliveries!.map((d) => [d._id, d.status, d.next_attempt_at]), [
      ['d1', 'succeeded', null], ['d2', 'succeeded', null], ['d3', 'succeeded', null], ['d4', 'failed', null], ['d5', 'cancelled', null], ['d6', 'cancelled', null],
    ])
    t.same(byId(webhook_deliveries!, 'd1')!.attempts, [
      { attempt: 1, attempted_at: at(4), status_code: 200, latency_ms: 41, response_excerpt: 'answer 1', error: null, outcome: 'succeeded' },
    ], 'the duplicate record of attempt 1 is no second attempt')
    const d3Attempts = byId(webhook_deliveries!, 'd3')!.attempts as readonly { attempt: number; outcome: string; error: string | null }[]
    t.same(d3Attempts.map((a) => [a.attempt, a.outcome, a.error]),
      [[1, 'retrying', 'connection refused'], [2, 'exhausted', 'connection refused'], [3, 'succeeded', null]], 'the replay keeps the earlier attempts')
    t.match(byId(webhook_deliveries!, 'd4'), { endpoint_id: 'e2', event_id: 'evt-d4', type: 'job.failed', attempts: [{ status_code: 410, outcome: 'gone' }], created_at: at(21) })
    t.match(byId(webhook_deliveries!, 'd5'), { attempts: [] })
    t.match(byId(webhook_deliveries!, 'd6'), { attempts: [{ outcome: 'retrying', status_code: 500 }] })
  },
}

/** The webhooks read model over endpoints (updated, rotated, failing, recovered, gone, deleted) and their deliveries. */
export const spec: ProjectionSpecFile = { history: recordHistory, expectations }
