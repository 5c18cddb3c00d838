import ipaddr from 'ipaddr.js'

/** An entry is an address or a CIDR range; both families. */
export const isValidIpRule = (rule: string): boolean => {
  try {
    if (rule.includes('/')) ipaddr.parseCIDR(rule)
    else ipaddr.parse(rule)
    return true
  } catch { return false }
}

const normalize = (ip: string) => {
  const parsed = ipaddr.parse(ip)
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed
}

/** An empty list allows every address. */
export const ipAllowed = (ip: string, rules: readonly string[]): boolean => {
  if (rules.length === 0) return true
  let address: ipaddr.IPv4 | ipaddr.IPv6
  try { address = normalize(ip) } catch { return false }
  return rules.some((rule) => {
    try {
      if (rule.includes('/')) {
        const [range, bits] = ipaddr.parseCIDR(rule)
        const normalizedRange = range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress() ? (range as ipaddr.IPv6).toIPv4Address() : range
        return address.kind() === normalizedRange.kind() && address.match(normalizedRange, normalizedRange.kind() === range.kind() ? bits : bits - 96)
      }
      return normalize(rule).toString() === address.toString()
    } catch { return false }
  })
}

type Range = { readonly address: ipaddr.IPv4 | ipaddr.IPv6; readonly bits: number }

/** An address is the range of its own bits; IPv4-mapped IPv6 is folded to IPv4 so both spellings compare equal. */
const rangeOf = (rule: string): Range => {
  const [address, bits] = rule.includes('/') ? ipaddr.parseCIDR(rule) : [ipaddr.parse(rule), rule.includes(':') ? 128 : 32]
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return { address: (address as ipaddr.IPv6).toIPv4Address(), bits: bits - 96 }
  }
  return { address, bits: address.kind() === 'ipv4' ? Math.min(bits, 32) : bits }
}

/** True when every address `inner` admits is admitted by `outer` (both are entries: an address or a CIDR range). */
export const ruleWithin = (inner: string, outer: string): boolean => {
  try {
    const a = rangeOf(inner)
    const b = rangeOf(outer)
    return a.address.kind() === b.address.kind() && a.bits >= b.bits && a.address.match(b.address, b.bits)
  } catch { return false }
}

/**
 * True when `inner` admits no address `outer` refuses. An empty list admits every address, so only an empty
 * `outer` contains an empty `inner`.
 */
export const allowlistWithin = (inner: readonly string[], outer: readonly string[]): boolean =>
  outer.length === 0 || (inner.length > 0 && inner.every((rule) => outer.some((o) => ruleWithin(rule, o))))
