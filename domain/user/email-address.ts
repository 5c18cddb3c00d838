// A CommonJS module whose types declare an ES default export: under NodeNext the default import is the module, hence `.default`.
import isEmailModule from 'validator/lib/isEmail.js'
import { fieldError, type FieldError } from '../errors.js'
import { hasLoneSurrogate } from '../validation.js'

/** RFC 5321's limit of a forward path; the local part is further held to 64 bytes (checked by `validator`). */
export const EMAIL_MAX_LENGTH = 254

/**
 * One normal form for storing, comparing, hashing and mailing an address: surrounding spaces removed, Unicode NFC
 * (one spelling of an accented letter), lower-cased as a whole. Lower-casing the local part too is a choice: the
 * service treats `Ada@` and `ada@` as one person, as nearly every mail provider does.
 */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase().normalize('NFC')

/**
 * Characters that no address shows to a person: controls (NUL, tab, newline…), format characters (zero-width
 * joiners, bidirectional overrides), private-use characters and line/paragraph separators. A mail library may drop
 * them (a NUL made `ceo@example.com\0.attacker.test` reach `ceo@example.com.attacker.test`) or a screen may hide them.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Co}\p{Zl}\p{Zp}]/u

/**
 * Mailbox syntax (RFC 5321/5322 dot-atom with UTF-8 allowed, RFC 6531): `validator`'s isEmail, no display name, a
 * domain name with a TLD (no IP literal), at most 254 characters with a local part of at most 64 bytes. Quoted local
 * parts are refused (`"` is blacklisted): they allow spaces and escapes that mail libraries parse differently.
 * No DNS lookup: deliverability is proven by the verification e-mail.
 */
export const isEmail = (email: string): boolean =>
  email.length <= EMAIL_MAX_LENGTH && !hasLoneSurrogate(email) && !HIDDEN.test(email)
  && isEmailModule.default(email, { allow_display_name: false, require_tld: true, allow_ip_domain: false, allow_utf8_local_part: true, blacklisted_chars: '"' })

/** Checks a client's `email` field and answers its normal form, or the field error (422 `invalid_email`). */
export const checkEmail = (input: string): { readonly ok: true; readonly email: string } | { readonly ok: false; readonly error: FieldError } => {
  if (hasLoneSurrogate(input)) return { ok: false, error: fieldError('email', 'invalid_email', 'email must be valid Unicode (it has a lone surrogate)') }
  if (HIDDEN.test(input)) return { ok: false, error: fieldError('email', 'invalid_email', 'email must not contain control or invisible characters') }
  const email = normalizeEmail(input)
  return isEmail(email) ? { ok: true, email } : { ok: false, error: fieldError('email', 'invalid_email', 'email must be an e-mail address') }
}
