import { Either } from 'effect'
import type { Decider } from '../decider.js'
import { NotFound, StateConflict, ValidationFailed, fieldError } from '../errors.js'
import { isPlanName, type PlanName } from '../plans.js'
import { ApiKeyCreated, ApiKeyRevoked, OrgCreated, OrgIpAllowlistSet, type KeyLimits, type OrgEvent } from './events.js'

export interface KeyState { readonly revoked: boolean }
export type OrgState =
  | { readonly exists: false }
  | { readonly exists: true; readonly org_id: string; readonly plan: PlanName; readonly keys: ReadonlyMap<string, KeyState> }

export type OrgCommand =
  | { readonly _tag: 'CreateOrg'; readonly org_id: string; readonly name: string; readonly plan: string; readonly now: string }
  | {
    readonly _tag: 'CreateApiKey'; readonly org_id: string; readonly key_id: string; readonly name: string; readonly key_hash: string
    readonly key_prefix: string; readonly scopes: readonly string[]; readonly limits: KeyLimits; readonly expires_at: string | null; readonly now: string
  }
  | { readonly _tag: 'RevokeApiKey'; readonly org_id: string; readonly key_id: string; readonly now: string }
  | { readonly _tag: 'SetOrgIpAllowlist'; readonly org_id: string; readonly ip_allowlist: readonly string[]; readonly now: string }

export type OrgError = NotFound | StateConflict | ValidationFailed

export const orgDecider: Decider<OrgCommand, OrgEvent, OrgState, OrgError> = {
  initialState: { exists: false },
  evolve: (state, event) => {
    switch (event._tag) {
      case 'OrgCreated':
        return { exists: true, org_id: event.org_id, plan: event.plan as PlanName, keys: new Map() }
      case 'ApiKeyCreated':
        return state.exists ? { ...state, keys: new Map(state.keys).set(event.key_id, { revoked: false }) } : state
      case 'ApiKeyRevoked':
        return state.exists ? { ...state, keys: new Map(state.keys).set(event.key_id, { revoked: true }) } : state
      case 'OrgIpAllowlistSet':
        return state
    }
  },
  decide: (command, state) => {
    switch (command._tag) {
      case 'CreateOrg': {
        if (state.exists) return Either.left(new StateConflict({ code: 'org_exists', message: 'organization already exists' }))
        const errors = [
          ...(command.name.trim() === '' || command.name.length > 200 ? [fieldError('name', 'invalid_name', 'name must be 1-200 characters')] : []),
          ...(!isPlanName(command.plan) ? [fieldError('plan', 'invalid_plan', 'plan must be free, starter, pro, business or enterprise')] : []),
        ]
        if (errors.length > 0) return Either.left(new ValidationFailed({ errors }))
        return Either.right([new OrgCreated({ org_id: command.org_id, name: command.name.trim(), plan: command.plan, created_at: command.now })])
      }
      case 'CreateApiKey': {
        if (!state.exists) return Either.left(new NotFound({ resource: 'org', id: command.org_id }))
        if (state.keys.has(command.key_id)) return Either.left(new StateConflict({ code: 'key_exists', message: 'key already exists' }))
        const { _tag, now, ...fields } = command
        return Either.right([new ApiKeyCreated({ ...fields, scopes: [...fields.scopes], created_at: now })])
      }
      case 'RevokeApiKey': {
        if (!state.exists) return Either.left(new NotFound({ resource: 'org', id: command.org_id }))
        const key = state.keys.get(command.key_id)
        if (!key) return Either.left(new NotFound({ resource: 'api_key', id: command.key_id }))
        if (key.revoked) return Either.right([])
        return Either.right([new ApiKeyRevoked({ org_id: command.org_id, key_id: command.key_id, revoked_at: command.now })])
      }
      case 'SetOrgIpAllowlist': {
        if (!state.exists) return Either.left(new NotFound({ resource: 'org', id: command.org_id }))
        return Either.right([new OrgIpAllowlistSet({ org_id: command.org_id, ip_allowlist: [...command.ip_allowlist], set_at: command.now })])
      }
    }
  },
}
