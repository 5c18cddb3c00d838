import t from 'tap'
import { circuitView, cooldownMs, type CircuitPolicy } from '../../domain/webhook/circuit.js'
import { endpointDecider } from '../../domain/webhook/endpoint-decider.js'
import {
  WebhookEndpointCircuitClosed, WebhookEndpointCircuitOpened, WebhookEndpointCreated, WebhookEndpointUnreachable,
} from '../../domain/webhook/events.js'
import { scenario } from '../helpers/given-when-then.js'

const policy: CircuitPolicy = { threshold: 3, cooldownMs: 60_000, maxCooldownMs: 200_000 }
const at = (seconds: number) => new Date(Date.UTC(2026, 10, 1, 0, 0, seconds)).toISOString()
const created = new WebhookEndpointCreated({ endpoint_id: 'e1', org_id: 'o1', url: 'https://hooks.example.com/', enabled_events: ['job.completed'], description: null, secret: 's', created_at: at(0) })
const unreachable = (s: number) => new WebhookEndpointUnreachable({ endpoint_id: 'e1', at: at(s) })
const opened = (s: number, trips: number, unreachableCount: number, cooldown: number) => new WebhookEndpointCircuitOpened({
  endpoint_id: 'e1', org_id: 'o1', opened_at: at(s), retry_at: new Date(Date.parse(at(s)) + cooldown).toISOString(), unreachable: unreachableCount, trips,
})
const noAnswer = (s: number) => ({ _tag: 'RecordUnreachable' as const, endpoint_id: 'e1', policy, now: at(s) })
const answered = (s: number) => ({ _tag: 'RecordAnswered' as const, endpoint_id: 'e1', now: at(s) })

t.test('the circuit opens at the threshold of unreachable attempts in a row', async (t) => {
  const given = scenario(t, endpointDecider)
  given([created]).when(noAnswer(1)).then([unreachable(1)], 'the first no-answer is counted')
  given([created, unreachable(1)]).when(noAnswer(2)).then([unreachable(2)], 'below the threshold: still closed')
  given([created, unreachable(1), unreachable(2)]).when(noAnswer(3)).then([unreachable(3), opened(3, 1, 3, 60_000)], 'the third opens it for the first cool-down')
  given([created, unreachable(1), unreachable(2), new WebhookEndpointCircuitClosed({ endpoint_id: 'e1', closed_at: at(2) })]).when(noAnswer(3))
    .then([unreachable(3)], 'an answer in between starts the count again')
})

t.test('an open circuit: in-flight timeouts change nothing, a failed probe reopens it for twice as long, an answer closes it', async (t) => {
  const given = scenario(t, endpointDecider)
  const open = [created, unreachable(1), unreachable(2), unreachable(3), opened(3, 1, 3, 60_000)]
  given(open).when(noAnswer(10)).then([], 'a delivery in flight when it opened adds nothing during the cool-down')
  given(open).when(noAnswer(63)).then([opened(63, 2, 4, 120_000)], 'the probe after the cool-down got no answer: reopened, cool-down doubled')
  given([...open, opened(63, 2, 4, 120_000)]).when(noAnswer(183)).then([opened(183, 3, 5, 200_000)], 'the cool-down is capped')
  given(open).when(answered(63)).then([new WebhookEndpointCircuitClosed({ endpoint_id: 'e1', closed_at: at(63) })], 'the probe was answered: closed')
  given([created]).when(answered(5)).then([], 'an answer to a healthy endpoint records nothing')
})

t.test('the view: open until retry_at, then half open, closed with no dates', async (t) => {
  const circuit = { opened_at: at(3), retry_at: at(63) }
  t.same(circuitView(circuit, new Date(at(62))), { state: 'open', opened_at: at(3), retry_at: at(63) })
  t.equal(circuitView(circuit, new Date(at(63))).state, 'half_open')
  t.same(circuitView({ opened_at: null, retry_at: null }, new Date(at(63))), { state: 'closed', opened_at: null, retry_at: null })
  t.same([1, 2, 3, 4].map((trips) => cooldownMs(policy, trips)), [60_000, 120_000, 200_000, 200_000])
})
