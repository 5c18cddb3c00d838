import { Data } from 'effect'

/** One failing field of a request: `field` is a dotted path, `code` a stable machine-readable code. */
export interface FieldError {
  readonly field: string
  readonly code: string
  readonly message: string
}

export const fieldError = (field: string, code: string, message: string): FieldError => ({ field, code, message })

/** A request that fails validation: answered 422, changes nothing. */
export class ValidationFailed extends Data.TaggedError('ValidationFailed')<{ readonly errors: readonly FieldError[] }> {}

/** A request without a required field (SPEC 7.1: a malformed body): answered 400 with the first field's code, changes nothing. */
export class MissingFields extends Data.TaggedError('MissingFields')<{ readonly errors: readonly FieldError[] }> {}

/** A resource that does not exist for the caller (also another organization's resource). */
export class NotFound extends Data.TaggedError('NotFound')<{ readonly resource: string; readonly id: string }> {}

/** A request that is valid but conflicts with the current state (answered 409). */
export class StateConflict extends Data.TaggedError('StateConflict')<{ readonly code: string; readonly message: string }> {}

/** The caller is authenticated but not allowed (answered 403); `details` names the fields at fault, when there are such. */
export class Forbidden extends Data.TaggedError('Forbidden')<{ readonly code: string; readonly message: string; readonly details?: readonly FieldError[] }> {}

/** A resource that existed and was retired, such as a recipe contract past its sunset (answered 410). */
export class Gone extends Data.TaggedError('Gone')<{ readonly code: string; readonly message: string }> {}

/** Something the request needs cannot be had right now (answered 503 with Retry-After). */
export class Unavailable extends Data.TaggedError('Unavailable')<{ readonly code: string; readonly message: string }> {}

/** Missing or invalid credentials (answered 401). */
export class Unauthenticated extends Data.TaggedError('Unauthenticated')<{ readonly code: string; readonly message: string }> {}

/** What a 429 answer carries: the code and the values of its rate-limit headers. */
interface RateLimited {
  readonly code: string
  readonly message: string
  readonly limit: number
  readonly remaining: number
  readonly resetAt: number
  readonly retryAfterSeconds: number
}

/** A limit was exceeded (answered 429 with rate-limit headers). */
export class LimitExceeded extends Data.TaggedError('LimitExceeded')<RateLimited> {}

/**
 * A job submission over one or more limits of its plan or key (enforced): nothing was created. Carries every breach
 * and, for the first, the values of the rate-limit headers (answered 429 like LimitExceeded).
 */
export class AdmissionRejected extends Data.TaggedError('AdmissionRejected')<RateLimited & {
  readonly breaches: readonly { readonly code: string; readonly message: string }[]
}> {}

export type DomainError = ValidationFailed | MissingFields | NotFound | StateConflict | Forbidden | Gone | Unavailable | Unauthenticated | LimitExceeded | AdmissionRejected
