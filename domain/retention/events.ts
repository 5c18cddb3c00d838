import { Schema } from 'effect'

/** The organization's retention policy after a change; `policy_version` counts the changes (SPEC 2.9, 9.4). */
export class RetentionPolicySet extends Schema.TaggedClass<RetentionPolicySet>()('RetentionPolicySet', {
  org_id: Schema.String,
  retention_days: Schema.Number,
  legal_hold_enabled: Schema.Boolean,
  policy_version: Schema.Number,
  set_at: Schema.String,
}) {}

export const RetentionEvent = Schema.Union(RetentionPolicySet)
export type RetentionEvent = typeof RetentionEvent.Type

export const HOLD_SCOPES = ['org', 'job', 'artifact'] as const
export const HoldScope = Schema.Literal(...HOLD_SCOPES)
export type HoldScope = typeof HoldScope.Type

/** A legal hold: nothing it covers is purged, even past retention or on a deletion request (SPEC 3.6). */
export class LegalHoldPlaced extends Schema.TaggedClass<LegalHoldPlaced>()('LegalHoldPlaced', {
  hold_id: Schema.String,
  org_id: Schema.String,
  scope_type: HoldScope,
  /** The job or artifact id; the organization's own id for an `org` hold. */
  scope_ref: Schema.String,
  justification: Schema.String,
  placed_at: Schema.String,
}) {}

export class LegalHoldReleased extends Schema.TaggedClass<LegalHoldReleased>()('LegalHoldReleased', {
  hold_id: Schema.String,
  org_id: Schema.String,
  justification: Schema.String,
  released_at: Schema.String,
}) {}

export const HoldEvent = Schema.Union(LegalHoldPlaced, LegalHoldReleased)
export type HoldEvent = typeof HoldEvent.Type
