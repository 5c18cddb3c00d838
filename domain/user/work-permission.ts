import { Forbidden } from '../errors.js'

/**
 * Work (API keys, scrapes, content monitors and their runs) is for users whose e-mail address is verified: an
 * unverified account costs nothing to make, so it must not be able to spend the service's fetchers or mail.
 */
export const refuseUnverified = (user: { readonly is_verified: boolean }): Forbidden | null =>
  user.is_verified ? null : new Forbidden({ code: 'email_not_verified', message: 'verify your e-mail address first (the link of the verification e-mail)' })
