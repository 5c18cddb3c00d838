import { Either } from 'effect'
import type { Decider } from '../decider.js'
import { fieldError, Forbidden, MissingFields, NotFound, StateConflict, ValidationFailed, type FieldError } from '../errors.js'
import { PLANS, type PlanName } from '../plans.js'
import { isPlainObject, unknownFields } from '../validation.js'
import { HOLD_SCOPES, LegalHoldPlaced, LegalHoldReleased, type HoldEvent, type HoldScope } from './events.js'

export type HoldState =
  | { readonly status: 'none' }
  | { readonly status: 'active' | 'released'; readonly hold_id: string; readonly org_id: string }

export type HoldCommand =
  | {
    readonly _tag: 'PlaceHold'; readonly hold_id: string; readonly org_id: string; readonly scope_type: HoldScope
    readonly scope_ref: string; readonly justification: string; readonly now: string
    /** The organization's plan and whether its retention policy has legal holds turned on. */
    readonly plan: PlanName; readonly holds_enabled: boolean
    /** Whether the job or artifact `scope_ref` names is the organization's (a read-model fact; unused for `org`). */
    readonly scope_found: boolean
  }
  | { readonly _tag: 'ReleaseHold'; readonly hold_id: string; readonly org_id: string; readonly justification: string; readonly now: string }

export type HoldError = NotFound | StateConflict | Forbidden | ValidationFailed

const badRef = (message: string) => new ValidationFailed({ errors: [fieldError('scope_ref', 'invalid_scope_ref', message)] })

/** Why a hold cannot be placed, in the order the API answers them (403 plan, 409 policy, 422 scope); null when it can. */
const placementProblem = (command: Extract<HoldCommand, { _tag: 'PlaceHold' }>): HoldError | null => {
  if (!PLANS[command.plan].legalHolds) return new Forbidden({ code: 'legal_holds_not_in_plan', message: `legal holds are available on Pro plans and above, not on ${command.plan}` })
  if (!command.holds_enabled) return new StateConflict({ code: 'legal_holds_disabled', message: 'legal holds are turned off: set legal_hold_enabled in the retention policy first' })
  if (command.scope_type === 'org') {
    return command.scope_ref === command.org_id ? null : badRef('an org hold covers the calling organization: leave scope_ref out or give its id')
  }
  return command.scope_found ? null : badRef(`no ${command.scope_type} ${command.scope_ref} in this organization`)
}

/**
 * One legal hold (`hold-<id>`): placed once, released once, only on plans with legal holds (Pro and above), while
 * the retention policy allows them, on the organization itself or one of its jobs or artifacts. Several holds on one
 * scope are separate streams.
 */
export const holdDecider: Decider<HoldCommand, HoldEvent, HoldState, HoldError> = {
  initialState: { status: 'none' },
  evolve: (state, event) => event._tag === 'LegalHoldPlaced'
    ? { status: 'active', hold_id: event.hold_id, org_id: event.org_id }
    : state.status === 'none' ? state : { ...state, status: 'released' },
  decide: (command, state) => {
    if (command._tag === 'PlaceHold') {
      if (state.status !== 'none') return Either.left(new StateConflict({ code: 'hold_exists', message: `hold ${command.hold_id} already exists` }))
      const problem = placementProblem(command)
      if (problem) return Either.left(problem)
      const { hold_id, org_id, scope_type, scope_ref, justification, now } = command
      return Either.right([new LegalHoldPlaced({ hold_id, org_id, scope_type, scope_ref, justification, placed_at: now })])
    }
    // Another organization's hold is indistinguishable from a missing one.
    if (state.status === 'none' || state.org_id !== command.org_id) return Either.left(new NotFound({ resource: 'hold', id: command.hold_id }))
    if (state.status === 'released') return Either.left(new StateConflict({ code: 'hold_already_released', message: `hold ${command.hold_id} was already released` }))
    return Either.right([new LegalHoldReleased({ hold_id: command.hold_id, org_id: command.org_id, justification: command.justification, released_at: command.now })])
  },
}

export const JUSTIFICATION_MAX_LENGTH = 2000
export const SCOPE_REF_MAX_LENGTH = 128

const justificationProblem = (value: unknown): FieldError | null =>
  typeof value !== 'string' || value.trim() === '' || value.length > JUSTIFICATION_MAX_LENGTH
    ? fieldError('justification', 'invalid_justification', `justification must be a non-empty string of at most ${JUSTIFICATION_MAX_LENGTH} characters`)
    : null

/**
 * Checks the body of POST /v1/org/retention-holds. For an `org` hold `scope_ref` may be left out (it is the
 * organization); whether a job or artifact exists is checked against the read model by the caller.
 */
export const validateHoldRequest = (body: unknown): Either.Either<{ scope_type: HoldScope; scope_ref: string | undefined; justification: string }, ValidationFailed | MissingFields> => {
  if (!isPlainObject(body)) return Either.left(new ValidationFailed({ errors: [fieldError('', 'invalid_body', 'the body must be a JSON object')] }))
  const required = body.scope_type === 'org' ? ['scope_type', 'justification'] as const : ['scope_type', 'scope_ref', 'justification'] as const
  const missing = required.filter((field) => body[field] === undefined)
  if (missing.length > 0) return Either.left(new MissingFields({ errors: missing.map((field) => fieldError(field, `missing_${field}`, `${field} is required`)) }))
  const problems: FieldError[] = []
  unknownFields(problems, '', body, new Set(['scope_type', 'scope_ref', 'justification']))
  if (!(HOLD_SCOPES as readonly unknown[]).includes(body.scope_type)) problems.push(fieldError('scope_type', 'invalid_scope_type', `scope_type must be one of ${HOLD_SCOPES.join(', ')}`))
  const ref = body.scope_ref
  if (ref !== undefined && (typeof ref !== 'string' || ref === '' || ref.length > SCOPE_REF_MAX_LENGTH)) {
    problems.push(fieldError('scope_ref', 'invalid_scope_ref', `scope_ref must be a non-empty string of at most ${SCOPE_REF_MAX_LENGTH} characters`))
  }
  const justification = justificationProblem(body.justification)
  if (justification) problems.push(justification)
  if (problems.length > 0) return Either.left(new ValidationFailed({ errors: problems }))
  return Either.right({ scope_type: body.scope_type as HoldScope, scope_ref: ref as string | undefined, justification: (body.justification as string) })
}

/** Checks the body of a hold release: `{justification}`. */
export const validateReleaseRequest = (body: unknown): Either.Either<{ justification: string }, ValidationFailed | MissingFields> => {
  if (!isPlainObject(body)) return Either.left(new ValidationFailed({ errors: [fieldError('', 'invalid_body', 'the body must be a JSON object')] }))
  if (body.justification === undefined) return Either.left(new MissingFields({ errors: [fieldError('justification', 'missing_justification', 'justification is required')] }))
  const problems: FieldError[] = []
  unknownFields(problems, '', body, new Set(['justification']))
  const justification = justificationProblem(body.justification)
  if (justification) problems.push(justification)
  if (problems.length > 0) return Either.left(new ValidationFailed({ errors: problems }))
  return Either.right({ justification: body.justification as string })
}
