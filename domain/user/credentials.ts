import { fieldError, type FieldError } from '../errors.js'
import { isPlainObject } from '../validation.js'
import { checkEmail } from './email-address.js'

export const PASSWORD_MIN_LENGTH = 8
/** An upper bound keeps hashing cost bounded; far above any passphrase. */
export const PASSWORD_MAX_LENGTH = 1024

export interface Credentials {
  readonly email: string
  readonly password: string
}

type Checked = { readonly ok: true; readonly value: Credentials } | { readonly ok: false; readonly errors: FieldError[] }

const characters = (s: string) => [...s].length

/**
 * Checks `{email, password}`. For registration the password policy applies (8 to 1024 characters); for a login only
 * presence is checked, so a wrong password of any length answers 401 like any other wrong password.
 */
export const checkCredentials = (input: unknown, purpose: 'register' | 'login'): Checked => {
  const body = isPlainObject(input) ? input : {}
  const errors: FieldError[] = []
  const { email, password } = body
  const checkedEmail = typeof email === 'string' && email !== '' ? checkEmail(email) : null
  if (email === undefined || email === null || email === '') errors.push(fieldError('email', 'missing_email', 'email is required'))
  else if (checkedEmail === null) errors.push(fieldError('email', 'invalid_email', 'email must be an e-mail address'))
  else if (!checkedEmail.ok) errors.push(checkedEmail.error)
  if (password === undefined || password === null || password === '') errors.push(fieldError('password', 'missing_password', 'password is required'))
  else if (typeof password !== 'string') errors.push(fieldError('password', 'invalid_password', 'password must be a string'))
  else if (purpose === 'register' && characters(password) < PASSWORD_MIN_LENGTH) {
    errors.push(fieldError('password', 'password_too_short', `password must have at least ${PASSWORD_MIN_LENGTH} characters`))
  } else if (characters(password) > PASSWORD_MAX_LENGTH) {
    errors.push(fieldError('password', 'password_too_long', `password must have at most ${PASSWORD_MAX_LENGTH} characters`))
  }
  if (errors.length > 0 || !checkedEmail?.ok) return { ok: false, errors }
  return { ok: true, value: { email: checkedEmail.email, password: password as string } }
}
