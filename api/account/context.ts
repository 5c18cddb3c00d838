import type { Effect } from 'effect'
import type { Allowlist } from '../../domain/address-policy.js'
import type { PlanName } from '../../domain/plans.js'
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
    /** REGISTRATIONS_PER_HOUR: POST /register attempts one client address may make per hour (api/account/registration-limit.ts). */
    readonly registrationsPerHour: number
    /** Consecutive failed logins of one address before it must wait (api/account/login-backoff.ts). */
    readonly loginFailuresBeforeBackoff: number
    /** True when PUBLIC_BASE_URL is https: the session cookie is then `Secure`. */
    readonly secureCookies: boolean
    /** SCRAPES_PER_MINUTE: /scrapes requests (all methods together) one user may make per minute. */
    readonly scrapesPerMinute: number
    /** SSRF_ALLOWLIST: scrape targets the submission-time checks let through. */
    readonly ssrfAllowlist: Allowlist
    /** REGISTRATION: `closed` refuses POST /register (403 registration_closed). */
    readonly registration: 'open' | 'closed'
    /** DEFAULT_PLAN: the plan of a sign-up's own organization. */
    readonly defaultPlan: PlanName
    /** Lifetime of signed screenshot URLs. */
    readonly artifactUrlTtlSeconds: number
  }
}
