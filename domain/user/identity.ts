import { createHash } from 'node:crypto'
import { normalizeEmail } from './email-address.js'

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** Names the uniqueness-guard stream of an address without putting the address in the stream id. */
export const emailHash = (email: string): string => sha256(normalizeEmail(email))

/** Verification tokens are 256-bit random secrets, so a fast hash stores them safely (as with API keys). */
export const verificationTokenHash = (token: string): string => sha256(token)

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * A verification token is `<user id>.<random>`: the user id lets GET /verify load the user's stream directly
 * (no read-model lookup that could lag behind the e-mail); only the whole token's hash is recorded.
 */
export const verificationToken = (userId: string, random: string) => `${userId}.${random}`

export const parseVerificationToken = (token: string): { readonly user_id: string } | null => {
  const dot = token.indexOf('.')
  if (dot < 0 || token.length > 200) return null
  const userId = token.slice(0, dot)
  return UUID.test(userId) && token.length > dot + 1 ? { user_id: userId } : null
}
