import { Either } from 'effect'
import type { Decider } from '../decider.js'
import { fieldError, Forbidden, MissingFields, StateConflict, ValidationFailed, type FieldError } from '../errors.js'
import { PLANS, type PlanName } from '../plans.js'
import { isPlainObject, unknownFields } from '../validation.js'
import { RetentionPolicySet, type RetentionEvent } from './events.js'

export interface RetentionPolicy {
  readonly retention_days: number
  readonly legal_hold_enabled: boolean
  /** 0 until the first change. */
  readonly policy_version: number
}

/** The policy of an organization that never changed it: its plan's default retention, holds off. */
export const defaultPolicy = (plan: PlanName): RetentionPolicy =>
  ({ retention_days: PLANS[plan].retention.defaultDays, legal_hold_enabled: false, policy_version: 0 })

export type RetentionState = RetentionPolicy | null

export interface SetRetentionPolicy {
  readonly _tag: 'SetRetentionPolicy'
  readonly org_id: string
  readonly plan: PlanName
  readonly retention_days: number
  readonly legal_hold_enabled: boolean
  /** Legal holds of the organization still in force: turning holds off while one is would silently lift it. */
  readonly active_holds: number
  readonly now: string
}

export type RetentionError = ValidationFailed | Forbidden | StateConflict

const invalid = (field: string, code: string, message: string) => new ValidationFailed({ errors: [fieldError(field, code, message)] })

/**
 * The retention policy of one organization (`retention-<org>`). Retention days are bounded by the plan and fixed on
 * plans whose retention is not adjustable (SPEC 8); legal holds only on plans that include them. A request that
 * changes nothing records nothing, so `policy_version` counts real changes.
 */
export const retentionDecider: Decider<SetRetentionPolicy, RetentionEvent, RetentionState, RetentionError> = {
  initialState: null,
  evolve: (_state, event) => ({ retention_days: event.retention_days, legal_hold_enabled: event.legal_hold_enabled, policy_version: event.policy_version }),
  decide: (command, state) => {
    const plan = PLANS[command.plan]
    const current = state ?? defaultPolicy(command.plan)
    if (command.retention_days !== current.retention_days) {
      if (!plan.retention.adjustable) {
        return Either.left(invalid('retention_days', 'retention_not_adjustable', `retention on the ${plan.name} plan is fixed at ${current.retention_days} days`))
      }
      if (command.retention_days > plan.retention.maxDays) {
        return Either.left(invalid('retention_days', 'retention_days_above_plan_maximum', `the ${plan.name} plan keeps data at most ${plan.retention.maxDays} days`))
      }
    }
    if (command.legal_hold_enabled && !plan.legalHolds) {
      return Either.left(new Forbidden({ code: 'legal_holds_not_in_plan', message: `legal holds are available on Pro plans and above, not on ${plan.name}` }))
    }
    if (!command.legal_hold_enabled && current.legal_hold_enabled && command.active_holds > 0) {
      return Either.left(new StateConflict({ code: 'legal_holds_active', message: `${command.active_holds} legal hold(s) are in force; release them before turning legal holds off` }))
    }
    if (command.retention_days === current.retention_days && command.legal_hold_enabled === current.legal_hold_enabled) return Either.right([])
    return Either.right([new RetentionPolicySet({
      org_id: command.org_id, retention_days: command.retention_days, legal_hold_enabled: command.legal_hold_enabled,
      policy_version: current.policy_version + 1, set_at: command.now,
    })])
  },
}

/** Checks the body of PUT /v1/org/retention-policy: a missing field is a malformed body (400), a wrong one 422. */
export const validatePolicyRequest = (body: unknown): Either.Either<{ retention_days: number; legal_hold_enabled: boolean }, ValidationFailed | MissingFields> => {
  if (!isPlainObject(body)) return Either.left(invalid('', 'invalid_body', 'the body must be a JSON object'))
  const missing = (['retention_days', 'legal_hold_enabled'] as const).filter((field) => body[field] === undefined)
  if (missing.length > 0) return Either.left(new MissingFields({ errors: missing.map((field) => fieldError(field, `missing_${field}`, `${field} is required`)) }))
  const problems: FieldError[] = []
  unknownFields(problems, '', body, new Set(['retention_days', 'legal_hold_enabled']))
  const days = body.retention_days
  if (typeof days !== 'number' || !Number.isSafeInteger(days) || days < 1) problems.push(fieldError('retention_days', 'invalid_retention_days', 'retention_days must be a whole number of at least 1'))
  const enabled = body.legal_hold_enabled
  if (typeof enabled !== 'boolean') problems.push(fieldError('legal_hold_enabled', 'invalid_legal_hold_enabled', 'legal_hold_enabled must be true or false'))
  if (problems.length > 0) return Either.left(new ValidationFailed({ errors: problems }))
  return Either.right({ retention_days: days as number, legal_hold_enabled: enabled as boolean })
}
