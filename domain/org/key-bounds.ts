import { Either } from 'effect'
import { fieldError, type FieldError } from '../errors.js'
import { allowlistWithin } from '../ip-allowlist.js'
import type { KeyLimits } from './events.js'

/** What a key may do: its scopes, its limits and its expiry. */
export interface KeyBounds {
  readonly scopes: readonly string[]
  readonly limits: KeyLimits
  readonly expires_at: string | null
}

/** A key as asked for: omitted limits (and an omitted expiry) take defaults. */
export interface RequestedKey {
  readonly scopes: readonly string[]
  readonly limits: Partial<KeyLimits>
  readonly expires_at?: string | null | undefined
}

/** The defaults of a key created without a creator key (the CLI, the account API). */
export const STANDARD_KEY_LIMITS: KeyLimits = {
  rate_limit_rpm: 600, daily_quota: 50_000, max_concurrent_jobs: null, enforcement_mode: 'block', ip_allowlist: [],
}

/**
 * Defaults under a creator: the narrower of the standard default and the creator's own value, so a restricted
 * key that omits a field creates a key as restricted as itself instead of being refused.
 */
const defaultsUnder = (creator: KeyBounds | null): KeyBounds['limits'] & { readonly expires_at: string | null } => creator === null
  ? { ...STANDARD_KEY_LIMITS, expires_at: null }
  : {
    rate_limit_rpm: Math.min(STANDARD_KEY_LIMITS.rate_limit_rpm, creator.limits.rate_limit_rpm),
    daily_quota: Math.min(STANDARD_KEY_LIMITS.daily_quota, creator.limits.daily_quota),
    max_concurrent_jobs: creator.limits.max_concurrent_jobs,
    enforcement_mode: 'block',
    ip_allowlist: creator.limits.ip_allowlist,
    expires_at: creator.expires_at,
  }

const exceeds = (field: string, message: string): FieldError => fieldError(field, `exceeds_creator_${field}`, message)

/**
 * An observe-mode key passes its limits (and the plan's) and is only metered: a policy of the organization, not a
 * limit one key hands down. So a blocked key may create one only when it administers the organization.
 */
const ORG_POLICY_SCOPE = 'org.manage'

/** A missing cap (null) is unlimited: wider than any number. */
const capWider = (inner: number | null, outer: number | null) => outer !== null && (inner === null || inner > outer)

/** Each field in which `inner` allows more than `outer` (empty when `inner` lies within `outer`). */
export const widerFields = (inner: KeyBounds, outer: KeyBounds): FieldError[] => {
  const problems: FieldError[] = []
  const extra = inner.scopes.filter((s) => !outer.scopes.includes(s))
  if (extra.length > 0) problems.push(exceeds('scopes', `scopes not held by the creating key: ${extra.join(', ')}`))
  if (inner.limits.rate_limit_rpm > outer.limits.rate_limit_rpm) {
    problems.push(exceeds('rate_limit_rpm', `rate_limit_rpm must be at most ${outer.limits.rate_limit_rpm}`))
  }
  if (inner.limits.daily_quota > outer.limits.daily_quota) problems.push(exceeds('daily_quota', `daily_quota must be at most ${outer.limits.daily_quota}`))
  if (capWider(inner.limits.max_concurrent_jobs, outer.limits.max_concurrent_jobs)) {
    problems.push(exceeds('max_concurrent_jobs', `max_concurrent_jobs must be at most ${outer.limits.max_concurrent_jobs}`))
  }
  if (inner.limits.enforcement_mode === 'observe' && outer.limits.enforcement_mode === 'block' && !outer.scopes.includes(ORG_POLICY_SCOPE)) {
    problems.push(exceeds('enforcement_mode', `enforcement_mode observe needs a key in observe mode or holding ${ORG_POLICY_SCOPE}`))
  }
  if (outer.expires_at !== null && (inner.expires_at === null || Date.parse(inner.expires_at) > Date.parse(outer.expires_at))) {
    problems.push(exceeds('expires_at', `expires_at must be at or before ${outer.expires_at}`))
  }
  if (!allowlistWithin(inner.limits.ip_allowlist, outer.limits.ip_allowlist)) {
    problems.push(exceeds('ip_allowlist', `ip_allowlist must be non-empty and every entry must lie within: ${outer.limits.ip_allowlist.join(', ')}`))
  }
  return problems
}

/**
 * The bounds of a key to create: omitted fields take their defaults (see `defaultsUnder`), then, when a key
 * creates it, every field must be no wider than the creator's (Left: one entry per wider field).
 */
export const boundKeyRequest = (creator: KeyBounds | null, requested: RequestedKey): Either.Either<KeyBounds, FieldError[]> => {
  const defaults = defaultsUnder(creator)
  const bounds: KeyBounds = {
    scopes: requested.scopes,
    limits: {
      rate_limit_rpm: requested.limits.rate_limit_rpm ?? defaults.rate_limit_rpm,
      daily_quota: requested.limits.daily_quota ?? defaults.daily_quota,
      max_concurrent_jobs: requested.limits.max_concurrent_jobs === undefined ? defaults.max_concurrent_jobs : requested.limits.max_concurrent_jobs,
      enforcement_mode: requested.limits.enforcement_mode ?? defaults.enforcement_mode,
      ip_allowlist: requested.limits.ip_allowlist ?? defaults.ip_allowlist,
    },
    expires_at: requested.expires_at === undefined ? defaults.expires_at : requested.expires_at,
  }
  if (creator === null) return Either.right(bounds)
  const problems = widerFields(bounds, creator)
  return problems.length > 0 ? Either.left(problems) : Either.right(bounds)
}
