import { Either } from 'effect'
import type { Decider } from '../decider.js'
import { NotFound, StateConflict } from '../errors.js'
import {
  WebhookEndpointCreated, WebhookEndpointDeleted, WebhookEndpointDisabled, WebhookEndpointFailing, WebhookEndpointRecovered,
  WebhookEndpointUpdated, WebhookPingRequested, WebhookSecretRotated, WebhookEndpointUnreachable, WebhookEndpointCircuitOpened,
  WebhookEndpointCircuitClosed, type WebhookEndpointEvent,
} from './events.js'
import { CLOSED_CIRCUIT, cooldownMs, circuitState, type Circuit, type CircuitPolicy } from './circuit.js'

/** How long a rotated-out secret keeps signing beside the new one. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000

/** A signing secret as recorded (sealed); `valid_until` null for the current one. */
export interface EndpointSecret {
  readonly secret: string
  readonly valid_until: string | null
}

export type EndpointState =
  | { readonly exists: false }
  | {
    readonly exists: true
    readonly endpoint_id: string
    readonly org_id: string
    readonly url: string
    readonly enabled_events: readonly string[]
    readonly enabled: boolean
    readonly deleted: boolean
    /** Newest first. */
    readonly secrets: readonly EndpointSecret[]
    /** When the current run of failed attempts began; null while deliveries succeed. */
    readonly failing_since: string | null
    /** The circuit breaker (domain/webhook/circuit.ts). */
    readonly circuit: Circuit
  }

export interface EndpointChanges {
  readonly url?: string
  readonly enabled_events?: readonly string[]
  readonly description?: string | null
  readonly enabled?: boolean
}

/** Every command names its endpoint. */
export type EndpointCommand = { readonly endpoint_id: string } & (
  | { readonly _tag: 'CreateEndpoint'; readonly org_id: string; readonly url: string; readonly enabled_events: readonly string[]; readonly description: string | null; readonly secret: string; readonly now: string }
  | { readonly _tag: 'UpdateEndpoint'; readonly org_id: string; readonly changes: EndpointChanges; readonly now: string }
  | { readonly _tag: 'RotateSecret'; readonly org_id: string; readonly secret: string; readonly now: string }
  | { readonly _tag: 'RequestPing'; readonly org_id: string; readonly now: string }
  | { readonly _tag: 'DeleteEndpoint'; readonly org_id: string; readonly now: string }
  /** The dispatcher's verdicts on delivery outcomes. */
  | { readonly _tag: 'DisableEndpoint'; readonly reason: 'gone' | 'failing'; readonly message: string; readonly now: string }
  | { readonly _tag: 'RecordDeliveryFailure'; readonly now: string }
  | { readonly _tag: 'RecordDeliverySuccess'; readonly now: string }
  /** A delivery got no answer: counts toward opening the circuit, or reopens it after a failed probe. */
  | { readonly _tag: 'RecordUnreachable'; readonly policy: CircuitPolicy; readonly now: string }
  /** A delivery got an answer (any status): the unreachable run ends, an open circuit closes. */
  | { readonly _tag: 'RecordAnswered'; readonly now: string }
)

type Live = Extract<EndpointState, { exists: true }>

/** The secrets that sign at `now`: the current one and a rotated-out one still inside its overlap. */
export const signingSecrets = (state: Live, now: Date): readonly string[] =>
  state.secrets.filter((s) => s.valid_until === null || Date.parse(s.valid_until) > now.getTime()).map((s) => s.secret)

/**
 * Closed: one more unreachable attempt, opening the circuit at the threshold. Open: a delivery already in flight
 * when it opened changes nothing; once the cool-down is over, a failed probe reopens it for twice as long.
 */
const onUnreachable = (state: Live, policy: CircuitPolicy, now: string): WebhookEndpointEvent[] => {
  const { circuit, endpoint_id, org_id } = state
  const at = new Date(now)
  const open = (unreachable: number, trips: number) => new WebhookEndpointCircuitOpened({
    endpoint_id, org_id, opened_at: now, retry_at: new Date(at.getTime() + cooldownMs(policy, trips)).toISOString(), unreachable, trips,
  })
  switch (circuitState(circuit, at)) {
    case 'open':
      return []
    case 'half_open':
      return [open(circuit.unreachable + 1, circuit.trips + 1)]
    case 'closed': {
      const unreachable = circuit.unreachable + 1
      return unreachable >= policy.threshold
        ? [new WebhookEndpointUnreachable({ endpoint_id, at: now }), open(unreachable, 1)]
        : [new WebhookEndpointUnreachable({ endpoint_id, at: now })]
    }
  }
}

export const endpointDecider: Decider<EndpointCommand, WebhookEndpointEvent, EndpointState, NotFound | StateConflict> = {
  initialState: { exists: false },
  evolve: (state, event) => {
    if (event._tag === 'WebhookEndpointCreated') {
      return {
        exists: true, endpoint_id: event.endpoint_id, org_id: event.org_id, url: event.url, enabled_events: event.enabled_events,
        enabled: true, deleted: false, secrets: [{ secret: event.secret, valid_until: null }], failing_since: null,
        circuit: CLOSED_CIRCUIT,
      }
    }
    if (!state.exists) return state
    switch (event._tag) {
      case 'WebhookEndpointUpdated':
        return {
          ...state,
          ...(event.url !== undefined ? { url: event.url } : {}),
          ...(event.enabled_events !== undefined ? { enabled_events: event.enabled_events } : {}),
          // Enabling again starts a fresh failure window.
          ...(event.enabled !== undefined ? { enabled: event.enabled, ...(event.enabled ? { failing_since: null } : {}) } : {}),
        }
      case 'WebhookEndpointDisabled':
        return { ...state, enabled: false }
      case 'WebhookEndpointFailing':
        return { ...state, failing_since: event.since }
      case 'WebhookEndpointRecovered':
        return { ...state, failing_since: null }
      case 'WebhookSecretRotated':
        return { ...state, secrets: [{ secret: event.secret, valid_until: null }, { secret: state.secrets[0]!.secret, valid_until: event.previous_valid_until }] }
      case 'WebhookPingRequested':
        return state
      case 'WebhookEndpointUnreachable':
        return { ...state, circuit: { ...state.circuit, unreachable: state.circuit.unreachable + 1 } }
      case 'WebhookEndpointCircuitOpened':
        return { ...state, circuit: { unreachable: event.unreachable, opened_at: event.opened_at, retry_at: event.retry_at, trips: event.trips } }
      case 'WebhookEndpointCircuitClosed':
        return { ...state, circuit: CLOSED_CIRCUIT }
      case 'WebhookEndpointDeleted':
        return { ...state, deleted: true, enabled: false }
    }
  },
  decide: (command, state) => {
    if (command._tag === 'CreateEndpoint') {
      if (state.exists) return Either.left(new StateConflict({ code: 'webhook_endpoint_exists', message: 'webhook endpoint already exists' }))
      return Either.right([new WebhookEndpointCreated({
        endpoint_id: command.endpoint_id, org_id: command.org_id, url: command.url, enabled_events: [...command.enabled_events],
        description: command.description, secret: command.secret, created_at: command.now,
      })])
    }
    // Another organization's endpoint is as unknown as a missing one.
    const visible = state.exists && !state.deleted && (!('org_id' in command) || command.org_id === state.org_id)
    if (!visible) return Either.left(new NotFound({ resource: 'webhook_endpoint', id: command.endpoint_id }))
    const id = state.endpoint_id
    switch (command._tag) {
      case 'UpdateEndpoint': {
        const c = command.changes
        if (Object.keys(c).length === 0) return Either.right([])
        return Either.right([new WebhookEndpointUpdated({
          endpoint_id: id, updated_at: command.now,
          ...(c.url !== undefined ? { url: c.url } : {}), ...(c.enabled_events !== undefined ? { enabled_events: [...c.enabled_events] } : {}),
          ...(c.description !== undefined ? { description: c.description } : {}), ...(c.enabled !== undefined ? { enabled: c.enabled } : {}),
        })])
      }
      case 'RotateSecret':
        return Either.right([new WebhookSecretRotated({
          endpoint_id: id, secret: command.secret, rotated_at: command.now,
          previous_valid_until: new Date(Date.parse(command.now) + SECRET_OVERLAP_MS).toISOString(),
        })])
      case 'RequestPing':
        return Either.right([new WebhookPingRequested({ endpoint_id: id, org_id: state.org_id, requested_at: command.now })])
      case 'DeleteEndpoint':
        return Either.right([new WebhookEndpointDeleted({ endpoint_id: id, deleted_at: command.now })])
      case 'DisableEndpoint':
        return Either.right(state.enabled
          ? [new WebhookEndpointDisabled({ endpoint_id: id, org_id: state.org_id, reason: command.reason, message: command.message, disabled_at: command.now })]
          : [])
      case 'RecordDeliveryFailure':
        return Either.right(state.failing_since === null ? [new WebhookEndpointFailing({ endpoint_id: id, since: command.now })] : [])
      case 'RecordDeliverySuccess':
        return Either.right(state.failing_since !== null ? [new WebhookEndpointRecovered({ endpoint_id: id, recovered_at: command.now })] : [])
      case 'RecordUnreachable':
        return Either.right(onUnreachable(state, command.policy, command.now))
      case 'RecordAnswered': {
        const { circuit } = state
        return Either.right(circuit.unreachable > 0 || circuit.retry_at !== null ? [new WebhookEndpointCircuitClosed({ endpoint_id: id, closed_at: command.now })] : [])
      }
    }
  },
}
