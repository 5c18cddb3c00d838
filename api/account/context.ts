import type { Effect } from 'effect'
import type { MailOutbox } from '../../ports/mail.js'
import type { ApiServices } from '../context.js'

/** What the account API needs beyond the shared ApiContext: the mail outbox (registration stages tokens there) and its settings. */
export interface AccountContext {
  readonly run: <A, E>(effect: Effect.Effect<A, E, ApiServices | MailOutbox>) => Promise<A>
  readonly settings: {
    readonly jwtSecret: string
    readonly accessTokenTtlSeconds: number
    readonly sessionTtlSeconds: number
    readonly verificationTokenTtlSeconds: number
    readonly loginAttemptsPerMinute: number
    /** Consecutive failed logins of one address before it must wait (api/account/login-backoff.ts). */
    readonly loginFailuresBeforeBackoff: number
    /** True when PUBLIC_BASE_URL is https: the session cookie is then `Secure`. */
    readonly secureCookies: boolean
  }
}
