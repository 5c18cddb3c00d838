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

// Lone UTF-16 surrogates are not text: encoded (to U+FFFD) for a key, a header or a URL, different strings collide.
// `\p{Cs}` in a `u` regex matches only unpaired halves.
const LONE_SURROGATE = /\p{Cs}/u
export const hasLoneSurrogate = (v: string): boolean => LONE_SURROGATE.test(v)
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/

/** Well-formed Unicode without control characters: safe in idempotency keys, labels, header values and URLs. */
export const isCleanText = (v: string): boolean => !hasLoneSurrogate(v) && !CONTROL_CHARACTER.test(v)

/** A non-empty string of clean text (see `isCleanText`) of at most `maxLength` characters. */
export const text = (errors: Errors, field: string, code: string, v: unknown, maxLength: number): string | undefined => {
  if (v === undefined) return undefined
  if (typeof v !== 'string' || v.length === 0 || v.length > maxLength || !isCleanText(v)) {
    errors.push(fieldError(field, code, `${field} must be a non-empty string of at most ${maxLength} characters, without control characters or invalid Unicode`))
    return undefined
  }
  return v
}

export const stringList = (errors: Errors, field: string, code: string, v: unknown, maxItems: number, maxLength: number): string[] | undefined => {
  if (v === undefined) return undefined
  if (!Array.isArray(v) || v.length > maxItems || v.some((s) => typeof s !== 'string' || s.length === 0 || s.length > maxLength || !isCleanText(s))) {
    errors.push(fieldError(field, code, `${field} must be a list of at most ${maxItems} non-empty strings of at most ${maxLength} characters, without control characters or invalid Unicode`))
    return undefined
  }
  return v as string[]
}

export const MAX_HEADERS = 50
export const MAX_HEADER_VALUE_LENGTH = 8192
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,256}$/
// What an HTTP/1.1 field value may carry as text: tab, visible ASCII, space and Latin-1 letters (no controls, no line breaks).
const HEADER_VALUE = /^[\t\x20-\x7e\u00a0-\u00ff]*$/

export const isHeaderValue = (v: string): boolean => v.length <= MAX_HEADER_VALUE_LENGTH && HEADER_VALUE.test(v)

/**
 * At most MAX_HEADERS headers whose names are RFC 9110 tokens and whose values are header text (see HEADER_VALUE):
 * header injection and bytes Node would refuse later are answered here, naming the header.
 */
export const headerMap = (errors: Errors, field: string, code: string, v: unknown): Record<string, string> | undefined => {
  if (v === undefined) return undefined
  if (!isPlainObject(v) || Object.keys(v).length > MAX_HEADERS) {
    errors.push(fieldError(field, code, `${field} must be an object of at most ${MAX_HEADERS} header names to string values`))
    return undefined
  }
  const before = errors.length
  for (const [name, value] of Object.entries(v)) {
    if (!HEADER_NAME.test(name)) errors.push(fieldError(`${field}.${name}`, 'invalid_header_name', `${field}: "${name}" is not a valid header name`))
    else if (typeof value !== 'string' || !isHeaderValue(value)) {
      errors.push(fieldError(`${field}.${name}`, 'invalid_header_value', `${field}.${name} must be a string of at most ${MAX_HEADER_VALUE_LENGTH} characters without control characters, line breaks or characters beyond Latin-1`))
    }
  }
  return errors.length === before ? v as Record<string, string> : undefined
}

export const unknownFields = (errors: Errors, prefix: string, v: Record<string, unknown>, known: ReadonlySet<string>): void => {
  for (const key of Object.keys(v)) {
    if (!known.has(key)) errors.push(fieldError(`${prefix}${key}`, 'unknown_field', `${prefix}${key} is not a known field`))
  }
}
