import { Schema } from 'effect'

export const KeyLimits = Schema.Struct({
  rate_limit_rpm: Schema.Number,
  daily_quota: Schema.Number,
  max_concurrent_jobs: Schema.NullOr(Schema.Number),
  enforcement_mode: Schema.Literal('block', 'observe'),
  ip_allowlist: Schema.Array(Schema.String),
})
export type KeyLimits = typeof KeyLimits.Type

export class OrgCreated extends Schema.TaggedClass<OrgCreated>()('OrgCreated', {
  org_id: Schema.String,
  name: Schema.String,
  plan: Schema.String,
  created_at: Schema.String,
}) {}

/** Only the SHA-256 of the secret is recorded; the secret itself is shown once to its creator. */
export class ApiKeyCreated extends Schema.TaggedClass<ApiKeyCreated>()('ApiKeyCreated', {
  key_id: Schema.String,
  org_id: Schema.String,
  name: Schema.String,
  key_hash: Schema.String,
  key_prefix: Schema.String,
  scopes: Schema.Array(Schema.String),
  limits: KeyLimits,
  expires_at: Schema.NullOr(Schema.String),
  created_at: Schema.String,
}) {}

export class ApiKeyRevoked extends Schema.TaggedClass<ApiKeyRevoked>()('ApiKeyRevoked', {
  key_id: Schema.String,
  org_id: Schema.String,
  revoked_at: Schema.String,
}) {}

/**
 * Scopes an operator added to an existing key (`cli key grant`): keys keep the scopes they were created with, so a
 * scope introduced by a later release reaches an existing key only this way. `scopes` are the added ones.
 */
export class ApiKeyScopesGranted extends Schema.TaggedClass<ApiKeyScopesGranted>()('ApiKeyScopesGranted', {
  key_id: Schema.String,
  org_id: Schema.String,
  scopes: Schema.Array(Schema.String),
  granted_at: Schema.String,
}) {}

/** Requests to the v1 API from addresses outside the list are refused (403); empty allows all. */
export class OrgIpAllowlistSet extends Schema.TaggedClass<OrgIpAllowlistSet>()('OrgIpAllowlistSet', {
  org_id: Schema.String,
  ip_allowlist: Schema.Array(Schema.String),
  set_at: Schema.String,
}) {}

/** Change summaries (made by a model provider, or the built-in rules) on or off for the organization's monitors. */
export class OrgSummariesSet extends Schema.TaggedClass<OrgSummariesSet>()('OrgSummariesSet', {
  org_id: Schema.String,
  enabled: Schema.Boolean,
  set_at: Schema.String,
}) {}

/** An operator moved the organization to another plan; what no longer fits it reacts to this event (monitors pause). */
export class OrgPlanChanged extends Schema.TaggedClass<OrgPlanChanged>()('OrgPlanChanged', {
  org_id: Schema.String,
  plan: Schema.String,
  previous_plan: Schema.String,
  changed_at: Schema.String,
}) {}

export const OrgEvent = Schema.Union(OrgCreated, ApiKeyCreated, ApiKeyRevoked, ApiKeyScopesGranted, OrgIpAllowlistSet, OrgSummariesSet, OrgPlanChanged)
export type OrgEvent = typeof OrgEvent.Type
