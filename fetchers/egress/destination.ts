import { isIP } from 'node:net'
import {
  type Allowlist,
  forbiddenAddressReason,
  forbiddenHostnameReason,
  forbiddenPortReason,
  isAllowlisted,
  isIpLiteral,
  normalizeHost,
} from '../../domain/address-policy.js'
import type { ResolvedAddress, Resolver } from './types.js'
import { withTimeout } from './system-resolver.js'

export type DestinationVerdict =
  | { readonly ok: true; readonly host: string; readonly addresses: readonly ResolvedAddress[] }
  | { readonly ok: false; readonly host: string; readonly status: 400 | 403 | 502; readonly reason: string }

export interface DestinationContext {
  readonly allowlist: Allowlist
  readonly resolver: Resolver
  readonly dnsTimeoutMs: number
}

const literal = (host: string): ResolvedAddress => {
  const address = host.startsWith('[') ? host.slice(1, -1) : host
  return { address, family: isIP(address) === 6 ? 6 : 4 }
}

/**
 * Decides whether `host:port` may be connected to and which addresses to pin the socket to.
 * Every address that survives has passed the policy, or is allowlisted as `ip:port`; the requested
 * name being allowlisted as `name:port` admits whatever it resolves to.
 */
export const checkDestination = async (rawHost: string, port: number, ctx: DestinationContext): Promise<DestinationVerdict> => {
  // Fold every notation (2130706433, 0x7f.1, LOCALHOST.) to the WHATWG form before any decision.
  const host = normalizeHost(rawHost)
  if (host === null) return { ok: false, host: rawHost, status: 400, reason: 'invalid_host' }
  const hostAllowlisted = isAllowlisted(ctx.allowlist, host, port)
  const portReason = forbiddenPortReason(port)
  const addressReason = (address: string) => forbiddenAddressReason(address) ?? portReason

  if (isIpLiteral(host)) {
    const reason = hostAllowlisted ? null : addressReason(host)
    return reason ? { ok: false, host, status: 403, reason } : { ok: true, host, addresses: [literal(host)] }
  }

  // A forbidden name may still reach addresses allowlisted as ip:port, never public ones.
  const nameReason = hostAllowlisted ? null : forbiddenHostnameReason(host)
  let resolved: readonly ResolvedAddress[]
  try {
    resolved = await withTimeout(ctx.resolver(host), ctx.dnsTimeoutMs)
  } catch {
    return nameReason ? { ok: false, host, status: 403, reason: nameReason } : { ok: false, host, status: 502, reason: 'dns_failed' }
  }
  const admits = (a: ResolvedAddress) =>
    hostAllowlisted || isAllowlisted(ctx.allowlist, a.address, port) || (nameReason === null && addressReason(a.address) === null)
  const addresses = resolved.filter(admits)
  if (addresses.length > 0) return { ok: true, host, addresses }
  const first = resolved[0]
  const reason = nameReason ?? (first ? addressReason(first.address) : null) ?? 'dns_failed'
  return { ok: false, host, status: reason === 'dns_failed' ? 502 : 403, reason }
}
