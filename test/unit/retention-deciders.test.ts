import t from 'tap'
import { scenario } from '../helpers/given-when-then.js'
import { LegalHoldPlaced, LegalHoldReleased, RetentionPolicySet } from '../../domain/retention/events.js'
import { holdDecider, type HoldCommand } from '../../domain/retention/hold.js'
import { retentionDecider, type SetRetentionPolicy } from '../../domain/retention/policy.js'

// The plan rules of retention and legal holds (SPEC 2.9, 8) are the deciders': given the organization's plan and
// state, when a policy change or a hold is asked for, then the event or the tagged error the API translates.

const NOW = '2026-05-01T12:00:00.000Z'

// ---- legal holds ----------------------------------------------------------------------------------------

const givenHold = scenario(t, holdDecider)
const place: Extract<HoldCommand, { _tag: 'PlaceHold' }> = {
  _tag: 'PlaceHold', hold_id: 'h1', org_id: 'o1', scope_type: 'job', scope_ref: 'j1', justification: 'litigation',
  plan: 'pro', holds_enabled: true, scope_found: true, now: NOW,
}
const placed = new LegalHoldPlaced({ hold_id: 'h1', org_id: 'o1', scope_type: 'job', scope_ref: 'j1', justification: 'litigation', placed_at: NOW })

givenHold([]).when(place).then([placed], 'a Pro organization with holds turned on places a hold on its job')
for (const plan of ['business', 'enterprise'] as const) givenHold([]).when({ ...place, plan }).then([placed], `the ${plan} plan includes legal holds`)
for (const plan of ['free', 'starter'] as const) {
  givenHold([]).when({ ...place, plan }).then({ _tag: 'Forbidden', code: 'legal_holds_not_in_plan' }, `the ${plan} plan has no legal holds (403)`)
}
givenHold([]).when({ ...place, plan: 'free', holds_enabled: false, scope_found: false })
  .then({ _tag: 'Forbidden', code: 'legal_holds_not_in_plan' }, 'the plan is answered before the policy and the scope')
givenHold([]).when({ ...place, holds_enabled: false }).then({ _tag: 'StateConflict', code: 'legal_holds_disabled' }, 'holds turned off in the policy (409)')
givenHold([]).when({ ...place, holds_enabled: false, scope_found: false })
  .then({ _tag: 'StateConflict', code: 'legal_holds_disabled' }, 'the policy is answered before the scope')
givenHold([]).when({ ...place, scope_found: false })
  .then({ _tag: 'ValidationFailed', errors: [{ field: 'scope_ref', code: 'invalid_scope_ref', message: 'no job j1 in this organization' }] }, 'a job not of the organization (422)')
givenHold([]).when({ ...place, scope_type: 'artifact', scope_ref: 'a1', scope_found: false })
  .then({ _tag: 'ValidationFailed', errors: [{ code: 'invalid_scope_ref', message: 'no artifact a1 in this organization' }] }, 'an artifact not of the organization (422)')
givenHold([]).when({ ...place, scope_type: 'org', scope_ref: 'o2', scope_found: false })
  .then({ _tag: 'ValidationFailed', errors: [{ code: 'invalid_scope_ref' }] }, 'an org hold on another organization (422)')
givenHold([]).when({ ...place, scope_type: 'org', scope_ref: 'o1', scope_found: false })
  .then([new LegalHoldPlaced({ ...placed, scope_type: 'org', scope_ref: 'o1' })], 'an org hold covers the organization itself')
givenHold([placed]).when(place).then({ _tag: 'StateConflict', code: 'hold_exists' }, 'a hold is placed once')

const release: HoldCommand = { _tag: 'ReleaseHold', hold_id: 'h1', org_id: 'o1', justification: 'closed', now: NOW }
const released = new LegalHoldReleased({ hold_id: 'h1', org_id: 'o1', justification: 'closed', released_at: NOW })
givenHold([placed]).when({ ...release, org_id: 'o2' }).then({ _tag: 'NotFound' }, 'another organization\'s hold is not found')
givenHold([placed]).when(release).then([released], 'a hold in force is released')
givenHold([placed, released]).when(release).then({ _tag: 'StateConflict', code: 'hold_already_released' }, 'a hold is released once')

// ---- retention policy -----------------------------------------------------------------------------------

const givenPolicy = scenario(t, retentionDecider)
const set = (plan: SetRetentionPolicy['plan'], retention_days: number, legal_hold_enabled = false, active_holds = 0): SetRetentionPolicy =>
  ({ _tag: 'SetRetentionPolicy', org_id: 'o1', plan, retention_days, legal_hold_enabled, active_holds, now: NOW })
const policySet = (retention_days: number, legal_hold_enabled: boolean, policy_version: number) =>
  new RetentionPolicySet({ org_id: 'o1', retention_days, legal_hold_enabled, policy_version, set_at: NOW })

givenPolicy([]).when(set('business', 60)).then([policySet(60, false, 1)], 'Business shortens its retention')
givenPolicy([]).when(set('enterprise', 365)).then([policySet(365, false, 1)], 'Enterprise keeps data up to its ceiling, 365 days')
givenPolicy([]).when(set('enterprise', 366)).then({ _tag: 'ValidationFailed', errors: [{ code: 'retention_days_above_plan_maximum' }] }, 'over Enterprise\'s ceiling (422)')
givenPolicy([]).when(set('business', 91)).then({ _tag: 'ValidationFailed', errors: [{ code: 'retention_days_above_plan_maximum' }] }, 'over Business\'s ceiling of 90 days (422)')
for (const [plan, days] of [['free', 7], ['starter', 30], ['pro', 30]] as const) {
  givenPolicy([]).when(set(plan, days - 1)).then({ _tag: 'ValidationFailed', errors: [{ code: 'retention_not_adjustable' }] }, `${plan} retention is fixed at ${days} days (422)`)
  givenPolicy([]).when(set(plan, days)).then([], `${plan}: its own default again changes nothing`)
}
givenPolicy([]).when(set('pro', 30, true)).then([policySet(30, true, 1)], 'Pro turns legal holds on')
givenPolicy([]).when(set('starter', 30, true)).then({ _tag: 'Forbidden', code: 'legal_holds_not_in_plan' }, 'Starter cannot turn legal holds on (403)')
givenPolicy([policySet(30, true, 1)]).when(set('pro', 30, false, 1)).then({ _tag: 'StateConflict', code: 'legal_holds_active' }, 'holds cannot be turned off while one is in force (409)')
givenPolicy([policySet(30, true, 1)]).when(set('pro', 30, false, 0)).then([policySet(30, false, 2)], 'with none in force they can, and the version counts the change')
