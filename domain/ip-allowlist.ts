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
