import { fieldError, type FieldError } from './errors.js'

/** Small pure helpers shared by the request validators; each pushes a FieldError and returns the value or undefined. */
export type Errors = FieldError[]

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

export const integerIn = (errors: Errors, field: string, code: string, v: unknown, min: number, max: number): number | undefined => {
  if (v === undefined) return undefined
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    errors.push(fieldError(field, code, `${field} must be an integer from ${min} to ${max}`))
    return undefined
  }
  return v
}

export const oneOf = <T extends string>(errors: Errors, field: string, code: string, v: unknown, allowed: readonly T[]): T | undefined => {
  if (v === undefined) return undefined
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    errors.push(fieldError(field, code, `${field} must be one of ${allowed.join(', ')}`))
    return undefined
  }
  return v as T
}

export const boolean = (errors: Errors, field: string, code: string, v: unknown): boolean | undefined => {
  if (v === undefined) return undefined
  if (typeof v !== 'boolean') {
    errors.push(fieldError(field, code, `${field} must be a boolean`))
    return undefined
  }
  return v
}

export const string = (errors: Errors, field: string, code: string, v: unknown, maxLength = 8192): string | undefined => {
  if (v === undefined) return undefined
  if (typeof v !== 'string' || v.length > maxLength) {
    errors.push(fieldError(field, code, `${field} must be a string of at most ${maxLength} characters`))
    return undefined
  }
  return v
}

export const stringList = (errors: Errors, field: string, code: string, v: unknown, maxItems: number, maxLength: number): string[] | undefined => {
  if (v === undefined) return undefined
  if (!Array.isArray(v) || v.length > maxItems || v.some((s) => typeof s !== 'string' || s.length === 0 || s.length > maxLength)) {
    errors.push(fieldError(field, code, `${field} must be a list of at most ${maxItems} non-empty strings of at most ${maxLength} characters`))
    return undefined
  }
  return v as string[]
}

/** Header names are RFC 7230 tokens; values must not carry line breaks (header injection). */
export const headerMap = (errors: Errors, field: string, code: string, v: unknown): Record<string, string> | undefined => {
  if (v === undefined) return undefined
  const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
  if (!isPlainObject(v) || Object.entries(v).some(([k, val]) => !token.test(k) || typeof val !== 'string' || /[\r\n\0]/.test(val))) {
    errors.push(fieldError(field, code, `${field} must be an object of header names to string values without line breaks`))
    return undefined
  }
  return v as Record<string, string>
}

export const unknownFields = (errors: Errors, prefix: string, v: Record<string, unknown>, known: ReadonlySet<string>): void => {
  for (const key of Object.keys(v)) {
    if (!known.has(key)) errors.push(fieldError(`${prefix}${key}`, 'unknown_field', `${prefix}${key} is not a known field`))
  }
}
