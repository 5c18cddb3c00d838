import { randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import { holdDecider } from '../domain/retention/hold.js'
import type { HoldScope } from '../domain/retention/events.js'
import { defaultPolicy, retentionDecider } from '../domain/retention/policy.js'
import type { PlanName } from '../domain/plans.js'
import { STREAMS } from '../domain/streams.js'
import { Clock } from '../ports/clock.js'
import { EventStore, type EventMetadata } from '../ports/event-store.js'
import { foldHistory, handle } from './handle.js'

export interface SetRetentionPolicyInput {
  readonly org_id: string
  readonly plan: PlanName
  readonly retention_days: number
  readonly legal_hold_enabled: boolean
  readonly active_holds: number
  readonly metadata: EventMetadata
}

export const setRetentionPolicy = (input: SetRetentionPolicyInput) =>
  Effect.flatMap(Clock, (clock) => handle(retentionDecider, STREAMS.retention.stream(input.org_id), {
    _tag: 'SetRetentionPolicy', org_id: input.org_id, plan: input.plan, retention_days: input.retention_days,
    legal_hold_enabled: input.legal_hold_enabled, active_holds: input.active_holds, now: clock.now().toISOString(),
  }, { org_id: input.org_id, metadata: input.metadata }))

export interface PlaceHoldInput {
  readonly org_id: string
  readonly plan: PlanName
  readonly scope_type: HoldScope
  readonly scope_ref: string
  /** Whether the job or artifact `scope_ref` names is the organization's, as its read model knows it. */
  readonly scope_found: boolean
  readonly justification: string
  readonly metadata: EventMetadata
}

/** The organization's retention policy as its own stream records it (the plan's defaults before any change). */
const retentionPolicyOf = (orgId: string, plan: PlanName) =>
  Effect.map(Effect.flatMap(EventStore, (store) => store.readStream(STREAMS.retention.stream(orgId))),
    (history) => foldHistory(retentionDecider, history) ?? defaultPolicy(plan))

export const placeHold = (input: PlaceHoldInput) =>
  Effect.gen(function* () {
    const holdId = randomUUID()
    const now = (yield* Clock).now().toISOString()
    const { metadata, ...fields } = input
    const policy = yield* retentionPolicyOf(input.org_id, input.plan)
    const command = { _tag: 'PlaceHold' as const, hold_id: holdId, ...fields, holds_enabled: policy.legal_hold_enabled, now }
    const handled = yield* handle(holdDecider, STREAMS.hold.stream(holdId), command, { org_id: input.org_id, metadata })
    return { hold_id: holdId, position: handled.position }
  })

export const releaseHold = (input: { readonly org_id: string; readonly hold_id: string; readonly justification: string; readonly metadata: EventMetadata }) =>
  Effect.flatMap(Clock, (clock) => handle(holdDecider, STREAMS.hold.stream(input.hold_id), {
    _tag: 'ReleaseHold', hold_id: input.hold_id, org_id: input.org_id, justification: input.justification, now: clock.now().toISOString(),
  }, { org_id: input.org_id, metadata: input.metadata }))
