import type { Allowlist } from '../../domain/address-policy.js'
import type { PoolSettings } from './pool.js'

/** Deployment settings shared by both browser tiers (from infra/config.ts). */
export interface BrowserSettings extends PoolSettings {
  /** The Chromium binary (CHROMIUM_PATH). */
  readonly chromiumPath: string
  /** The egress gateway every browser request goes through. */
  readonly proxyUrl: string
  /** The SSRF allowlist (SSRF_ALLOWLIST): tells a refused tunnel from an unreachable one when a page navigates. */
  readonly allowlist: Allowlist
}
