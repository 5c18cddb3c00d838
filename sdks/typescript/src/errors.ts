import type { FieldError } from './types.js'

/**
 * Every failure of the SDK: an error answer of the API (its status, `error.code` and the failing fields of a 400/422),
 * a job that ended without success (`status` 0, `code` `job_failed`), or a service that cannot be reached (`status`
 * 0, `code` `connection_failed`).
 */
export class ScrapeworksError extends Error {
  override readonly name = 'ScrapeworksError'
  constructor(
    message: string,
    /** HTTP status of the answer; 0 when there was none. */
    readonly status: number,
    /** The API's machine-readable `error.code`, or the SDK's own (`job_failed`, `connection_failed`, `invalid_answer`). */
    readonly code: string,
    /** Every failing field of a 400/422 (`error.details`); empty otherwise. */
    readonly fieldErrors: readonly FieldError[] = [],
    /** Seconds the answer's `Retry-After` asked to wait (429, 503); null without one. */
    readonly retryAfterSeconds: number | null = null,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options)
  }
}

/** The error of an answer that is not 2xx, from the API's error body `{error: {code, message, details?}}`. */
export const errorOfAnswer = (status: number, body: unknown, retryAfterSeconds: number | null): ScrapeworksError => {
  const error = typeof body === 'object' && body !== null && 'error' in body ? (body as { error: unknown }).error : undefined
  if (typeof error !== 'object' || error === null) {
    return new ScrapeworksError(`the API answered ${status} without an error body`, status, `http_${status}`, [], retryAfterSeconds)
  }
  const { code, message, details } = error as { code?: unknown; message?: unknown; details?: unknown }
  return new ScrapeworksError(
    `${status} ${String(code)}: ${String(message)}`, status, String(code),
    Array.isArray(details) ? (details as FieldError[]) : [], retryAfterSeconds,
  )
}
