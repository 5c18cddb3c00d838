import { Either } from 'effect'
import type { Decider } from '../decider.js'
import { Forbidden, NotFound, StateConflict, Unauthenticated, ValidationFailed, fieldError, type FieldError } from '../errors.js'
import { ipAllowed } from '../ip-allowlist.js'
import { isPlanName, type PlanName } from '../plans.js'
import { isScope, SCOPES } from '../scopes.js'
import { ApiKeyCreated, ApiKeyRevoked, ApiKeyScopesGranted, OrgCreated, OrgIpAllowlistSet, OrgPlanChanged, OrgSummariesSet, type KeyLimits, type OrgEvent } from './events.js'
import { boundKeyRequest, widerFields, type KeyBounds } from './key-bounds.js'

export interface KeyState extends KeyBounds { readonly revoked: boolean }
export type OrgState =
  | { readonly exists: false }
  | {
    readonly exists: true; readonly org_id: string; readonly plan: PlanName; readonly keys: ReadonlyMap<string, KeyState>
    /** Change summaries for the organization's monitors (on unless switched off). */
    readonly summaries: boolean
  }

export type OrgCommand =
  | { readonly _tag: 'CreateOrg'; readonly org_id: string; readonly name: string; readonly plan: string; readonly now: string }
  | {
    readonly _tag: 'CreateApiKey'; readonly org_id: string; readonly key_id: string; readonly name: string; readonly key_hash: string
    readonly key_prefix: string; readonly scopes: readonly string[]; readonly limits: Partial<KeyLimits>; readonly expires_at?: string | null | undefined
    /** The key that asks (POST /v1/keys): the new key must lie within it. Absent for operators and account users. */
    readonly creator_key_id?: string | undefined
    readonly now: string
  }
  | {
    readonly _tag: 'RevokeApiKey'; readonly org_id: string; readonly key_id: string
    /** The key that asks: it may only revoke keys that lie within it. */
    readonly revoker_key_id?: string | undefined
    readonly now: string
  }
  | {
    readonly _tag: 'SetOrgIpAllowlist'; readonly org_id: string; readonly ip_allowlist: readonly string[]
    /** The address the request came from (absent for operators): a list that excludes it would lock the organization out. */
    readonly caller_ip?: string | undefined
    readonly now: string
  }
  /** An operator's grant of scopes to an existing key (never through a key: no key widens another). */
  | { readonly _tag: 'GrantApiKeyScopes'; readonly org_id: string; readonly key_id: string; readonly scopes: readonly string[]; readonly now: string }
  | { readonly _tag: 'SetOrgSummaries'; readonly org_id: string; readonly enabled: boolean; readonly now: string }
  | { readonly _tag: 'ChangeOrgPlan'; readonly org_id: string; readonly plan: string; readonly now: string }

export type OrgError = NotFound | StateConflict | ValidationFailed | Forbidden | Unauthenticated

/** The key a command acts through; none (null) for operators and account users. A revoked key acts no more. */
const actingKey = (keys: ReadonlyMap<string, KeyState>, keyId: string | undefined): Either.Either<KeyBounds | null, Unauthenticated> => {
  if (keyId === undefined) return Either.right(null)
  const key = keys.get(keyId)
  return key && !key.revoked
    ? Either.right(key)
    : Either.left(new Unauthenticated({ code: 'invalid_api_key', message: 'the API key is invalid, revoked or expired' }))
}

const exceedsCreator = (message: string, details: FieldError[]) => new Forbidden({ code: 'key_exceeds_creator', message, details })

/** In UTF-16 code units. */
export const ORG_NAME_MAX_LENGTH = 200

export const orgDecider: Decider<OrgCommand, OrgEvent, OrgState, OrgError> = {
  initialState: { exists: false },
  evolve: (state, event) => {
    switch (event._tag) {
      case 'OrgCreated':
        return { exists: true, org_id: event.org_id, plan: event.plan as PlanName, keys: new Map(), summaries: true }
      case 'ApiKeyCreated':
        return state.exists
          ? { ...state, keys: new Map(state.keys).set(event.key_id, { revoked: false, scopes: event.scopes, limits: event.limits, expires_at: event.expires_at }) }
          : state
      case 'ApiKeyRevoked': {
        const key = state.exists ? state.keys.get(event.key_id) : undefined
        return state.exists && key ? { ...state, keys: new Map(state.keys).set(event.key_id, { ...key, revoked: true }) } : state
      }
      case 'ApiKeyScopesGranted': {
        const key = state.exists ? state.keys.get(event.key_id) : undefined
        return state.exists && key ? { ...state, keys: new Map(state.keys).set(event.key_id, { ...key, scopes: [...key.scopes, ...event.scopes] }) } : state
      }
      case 'OrgIpAllowlistSet':
        return state
      case 'OrgSummariesSet':
        return state.exists ? { ...state, summaries: event.enabled } : state
      case 'OrgPlanChanged':
        return state.exists && isPlanName(event.plan) ? { ...state, plan: event.plan } : state
    }
  },
  decide: (command, state) => {
    switch (command._tag) {
      case 'CreateOrg': {
        if (state.exists) return Either.left(new StateConflict({ code: 'org_exists', message: 'organization already exists' }))
        const errors = [
          ...(command.name.trim() === '' || command.name.length > ORG_NAME_MAX_LENGTH ? [fieldError('name', 'invalid_name', `name must be 1-${ORG_NAME_MAX_LENGTH} characters`)] : []),
          ...(!isPlanName(command.plan) ? [fieldError('plan', 'invalid_plan', 'plan must be free, starter, pro, business or enterprise')] : []),
        ]
        if (errors.length > 0) return Either.left(new ValidationFailed({ errors }))
        return Either.right([new OrgCreated({ org_id: command.org_id, name: command.name.trim(), plan: command.plan, created_at: command.now })])
      }
      case 'CreateApiKey': {
        if (!state.exists) return Either.left(new NotFound({ resource: 'org', id: command.org_id }))
        if (state.keys.has(command.key_id)) return Either.left(new StateConflict({ code: 'key_exists', message: 'key already exists' }))
        const creator = actingKey(state.keys, command.creator_key_id)
        if (Either.isLeft(creator)) return Either.left(creator.left)
        const bounds = boundKeyRequest(creator.right, command)
        if (Either.isLeft(bounds)) return Either.left(exceedsCreator('the new key would allow more than the key creating it', bounds.left))
        return Either.right([new ApiKeyCreated({
          key_id: command.key_id, org_id: command.org_id, name: command.name, key_hash: command.key_hash, key_prefix: command.key_prefix,
          scopes: [...bounds.right.scopes], limits: bounds.right.limits, expires_at: bounds.right.expires_at, created_at: command.now,
        })])
      }
      case 'RevokeApiKey': {
        if (!state.exists) return Either.left(new NotFound({ resource: 'org', id: command.org_id }))
        const key = state.keys.get(command.key_id)
        if (!key) return Either.left(new NotFound({ resource: 'api_key', id: command.key_id }))
        const revoker = actingKey(state.keys, command.revoker_key_id)
        if (Either.isLeft(revoker)) return Either.left(revoker.left)
        const wider = revoker.right ? widerFields(key, revoker.right) : []
        if (wider.length > 0) return Either.left(exceedsCreator('a key may only revoke keys that allow no more than itself', wider))
        if (key.revoked) return Either.right([])
        return Either.right([new ApiKeyRevoked({ org_id: command.org_id, key_id: command.key_id, revoked_at: command.now })])
      }
      case 'GrantApiKeyScopes': {
        if (!state.exists) return Either.left(new NotFound({ resource: 'org', id: command.org_id }))
        const key = state.keys.get(command.key_id)
        if (!key) return Either.left(new NotFound({ resource: 'api_key', id: command.key_id }))
        if (command.scopes.length === 0 || !command.scopes.every(isScope)) {
          return Either.left(new ValidationFailed({ errors: [fieldError('scopes', 'invalid_scopes', `scopes must be a non-empty list of: ${SCOPES.join(', ')}`)] }))
        }
        if (key.revoked) return Either.left(new StateConflict({ code: 'key_revoked', message: `key ${command.key_id} is revoked` }))
        const added = [...new Set(command.scopes)].filter((scope) => !key.scopes.includes(scope))
        if (added.length === 0) return Either.right([])
        return Either.right([new ApiKeyScopesGranted({ org_id: command.org_id, key_id: command.key_id, scopes: added, granted_at: command.now })])
      }
      case 'SetOrgIpAllowlist': {
        if (!state.exists) return Either.left(new NotFound({ resource: 'org', id: command.org_id }))
        if (command.caller_ip !== undefined && !ipAllowed(command.caller_ip, command.ip_allowlist)) {
          return Either.left(new ValidationFailed({
            errors: [fieldError('ip_allowlist', 'allowlist_excludes_caller', `ip_allowlist must include the address of this request (${command.caller_ip}), or no key could reach the organization any more`)],
          }))
        }
        return Either.right([new OrgIpAllowlistSet({ org_id: command.org_id, ip_allowlist: [...command.ip_allowlist], set_at: command.now })])
      }
      case 'SetOrgSummaries': {
        if (!state.exists) return Either.left(new NotFound({ resource: 'org', id: command.org_id }))
        if (state.summaries === command.enabled) return Either.right([])
        return Either.right([new OrgSummariesSet({ org_id: command.org_id, enabled: command.enabled, set_at: command.now })])
      }
      case 'ChangeOrgPlan': {
        if (!state.exists) return Either.left(new NotFound({ resource: 'org', id: command.org_id }))
        if (!isPlanName(command.plan)) return Either.left(new ValidationFailed({ errors: [fieldError('plan', 'invalid_plan', 'plan must be free, starter, pro, business or enterprise')] }))
        if (state.plan === command.plan) return Either.right([])
        return Either.right([new OrgPlanChanged({ org_id: command.org_id, plan: command.plan, previous_plan: state.plan, changed_at: command.now })])
      }
    }
  },
}
