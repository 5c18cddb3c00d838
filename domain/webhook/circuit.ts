/**
 * The per-endpoint circuit breaker (docs/webhook-delivery-limits.md): an endpoint that timed out or refused the
 * connection `threshold` times in a row is not sent to for a cool-down, so its deliveries stop holding its
 * organization's slots for `WEBHOOK_TIMEOUT_MS` each. Deliveries wait meanwhile (no attempt is recorded); when the
 * cool-down ends one probe delivery is sent: an answer closes the circuit, another timeout opens it again for twice
 * as long (up to `maxCooldownMs`).
 */
import { Schema } from 'effect'

export interface CircuitPolicy {
  /** WEBHOOK_CIRCUIT_THRESHOLD (5): unreachable attempts in a row that open the circuit. */
  readonly threshold: number
  /** WEBHOOK_CIRCUIT_COOLDOWN_MS (60000): the first cool-down; each reopening doubles it. */
  readonly cooldownMs: number
  /** WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS (3600000): the longest cool-down. */
  readonly maxCooldownMs: number
}

export const DEFAULT_CIRCUIT_POLICY: CircuitPolicy = { threshold: 5, cooldownMs: 60_000, maxCooldownMs: 3_600_000 }

/** An endpoint's circuit as folded from its stream. */
export interface Circuit {
  /** Unreachable attempts since the endpoint last answered. */
  readonly unreachable: number
  /** When it opened; null while closed. */
  readonly opened_at: string | null
  /** When the probe may be sent; null while closed. */
  readonly retry_at: string | null
  /** Openings since it last closed: the exponent of the cool-down. */
  readonly trips: number
}

export const CLOSED_CIRCUIT: Circuit = { unreachable: 0, opened_at: null, retry_at: null, trips: 0 }

/** The cool-down after the `trips`-th opening in a row: doubled each time, capped. */
export const cooldownMs = (policy: CircuitPolicy, trips: number) =>
  Math.min(policy.maxCooldownMs, policy.cooldownMs * 2 ** Math.max(0, Math.min(trips - 1, 30)))

/** `closed`: deliveries go; `open`: they wait until `retry_at`; `half_open`: the cool-down is over, one probe may go. */
export type CircuitState = 'closed' | 'open' | 'half_open'

export const circuitState = (circuit: Pick<Circuit, 'retry_at'>, now: Date): CircuitState =>
  circuit.retry_at === null ? 'closed' : Date.parse(circuit.retry_at) > now.getTime() ? 'open' : 'half_open'

/** What the endpoint's GET view shows: the one source of its type and of its OpenAPI schema. */
export const CircuitView = Schema.Struct({
  state: Schema.Literal('closed', 'open', 'half_open'),
  opened_at: Schema.NullOr(Schema.String).annotations({ description: 'When it last opened; null while closed.' }),
  retry_at: Schema.NullOr(Schema.String).annotations({ description: 'When the probe delivery may be sent; null while closed.' }),
}).annotations({
  description: 'The circuit breaker (docs/webhook-delivery-limits.md). It opens after `WEBHOOK_CIRCUIT_THRESHOLD` (5) deliveries in a row got no answer (timeout, refused or reset connection): `open`: deliveries wait, unsent and not counted as attempts, until `retry_at`; `half_open`: the cool-down is over and one probe delivery is sent (an answer closes the circuit, another timeout reopens it for twice as long, up to `WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS`); `closed`: deliveries go.',
})

export const circuitView = (circuit: Pick<Circuit, 'opened_at' | 'retry_at'>, now: Date): typeof CircuitView.Type =>
  ({ state: circuitState(circuit, now), opened_at: circuit.opened_at, retry_at: circuit.retry_at })

/** A delivery outcome that counts toward opening: no answer at all (timeout, refused or reset connection). */
export const isUnreachable = (status: number | null) => status === null
