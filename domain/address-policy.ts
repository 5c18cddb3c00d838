import ipaddr from 'ipaddr.js'

/**
 * SSRF policy: which addresses, host names and ports the service may connect to.
 * Pure: the egress gateway applies it to resolved addresses, job submission to the URL text.
 */

/** Normalized `host:port` entries (IPv6 hosts in brackets) that bypass the policy, e.g. local test fixtures. */
export type Allowlist = ReadonlySet<string>

export type ForbiddenReason =
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'multicast'
  | 'unspecified'
  | 'cgnat'
  | 'cloud_metadata'
  | 'reserved'
  | 'broadcast'
  | 'ipv4_mapped_forbidden'
  | 'ipv4_embedded_forbidden'
  | 'not_an_ip'

export type ForbiddenHostReason = ForbiddenReason | 'localhost' | 'internal_hostname' | 'single_label_hostname' | 'invalid_host'

type Embedded = 'mapped' | 'compat' | 'nat64' | '6to4'
type Rule<R> = readonly [cidr: string, verdict: R]

// First match wins, so specific entries (metadata, broadcast) precede the ranges containing them.
const IPV4_RULES: readonly Rule<ForbiddenReason>[] = [
  ['169.254.169.254/32', 'cloud_metadata'], // AWS, GCP, Azure, OCI, DigitalOcean...
  ['168.63.129.16/32', 'cloud_metadata'], // Azure WireServer: a public-looking address only reachable from inside Azure
  ['100.100.100.200/32', 'cloud_metadata'], // Alibaba Cloud
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'cgnat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link_local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'reserved'],
  ['192.88.99.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'],
  ['198.51.100.0/24', 'reserved'],
  ['203.0.113.0/24', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
]

const IPV6_RULES: readonly Rule<ForbiddenReason | Embedded>[] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::ffff:0:0/96', 'mapped'],
  ['::/96', 'compat'],
  ['64:ff9b::/96', 'nat64'],
  ['64:ff9b:1::/48', 'private'],
  ['100::/64', 'reserved'],
  ['2001::/32', 'reserved'], // Teredo: obfuscated embedded address, deprecated
  ['2001:10::/28', 'reserved'],
  ['2001:20::/28', 'reserved'],
  ['2001:db8::/32', 'reserved'],
  ['2002::/16', '6to4'],
  ['3fff::/20', 'reserved'],
  ['5f00::/16', 'reserved'],
  ['fd00:ec2::254/128', 'cloud_metadata'], // AWS IMDS over IPv6
  ['fc00::/7', 'private'],
  ['fe80::/10', 'link_local'],
  ['fec0::/10', 'private'],
  ['ff00::/8', 'multicast'],
]

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3')

const compile = <R>(rules: readonly Rule<R>[]) => rules.map(([cidr, verdict]) => ({ range: ipaddr.parseCIDR(cidr), verdict }))
const V4 = compile(IPV4_RULES)
const V6 = compile(IPV6_RULES)

const v4Reason = (addr: ipaddr.IPv4): ForbiddenReason | null => V4.find((r) => addr.match(r.range))?.verdict ?? null

const embeddedV4 = (addr: ipaddr.IPv6, form: Embedded): ipaddr.IPv4 => {
  const [hi, lo] = form === '6to4' ? [addr.parts[1], addr.parts[2]] : [addr.parts[6], addr.parts[7]]
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff])
}

const v6Reason = (addr: ipaddr.IPv6): ForbiddenReason | null => {
  const verdict = V6.find((r) => addr.match(r.range))?.verdict
  switch (verdict) {
    case undefined:
      return addr.match(GLOBAL_UNICAST_V6) ? null : 'reserved'
    case 'mapped':
      return v4Reason(embeddedV4(addr, verdict)) === null ? null : 'ipv4_mapped_forbidden'
    case 'compat': // deprecated form: never public, but say so when it hides a forbidden v4
      return v4Reason(embeddedV4(addr, verdict)) === null ? 'reserved' : 'ipv4_embedded_forbidden'
    case 'nat64':
    case '6to4':
      return v4Reason(embeddedV4(addr, verdict)) === null ? null : 'ipv4_embedded_forbidden'
    default:
      return verdict
  }
}

/** Null when `ip` is a public address; otherwise why it may not be connected to. Accepts any notation ipaddr.js parses. */
export const forbiddenAddressReason = (ip: string): ForbiddenReason | null => {
  let text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip
  if (text.includes(':')) {
    // ipaddr.js reads `::1.2.3.4` as IPv4-mapped; the WHATWG parser agrees with inet_pton, so let it canonicalize.
    const canonical = normalizeHost(text.replace(/%.*$/, ''))
    if (canonical === null) return 'not_an_ip'
    text = canonical.slice(1, -1)
  }
  if (!ipaddr.isValid(text)) return 'not_an_ip'
  const addr = ipaddr.parse(text)
  return addr.kind() === 'ipv4' ? v4Reason(addr as ipaddr.IPv4) : v6Reason(addr as ipaddr.IPv6)
}

// Names that resolve to the service's own network (search domains, mDNS, split-horizon DNS).
const INTERNAL_SUFFIXES = ['local', 'internal', 'localdomain', 'lan', 'home', 'home.arpa', 'intranet', 'corp', 'private', 'arpa']

/** Policy for a host *name* (not an IP literal): local and internal names are refused before any DNS lookup. */
export const forbiddenHostnameReason = (hostname: string): ForbiddenHostReason | null => {
  const name = hostname.toLowerCase().replace(/\.+$/, '')
  if (name === '') return 'invalid_host'
  if (name === 'localhost' || name.endsWith('.localhost')) return 'localhost'
  if (INTERNAL_SUFFIXES.some((s) => name === s || name.endsWith(`.${s}`))) return 'internal_hostname'
  if (!name.includes('.')) return 'single_label_hostname' // resolved through search domains, e.g. `metadata`, `redis`
  return null
}

/** True when `host` (URL form: IPv6 in brackets, IPv4 dotted) is an IP literal. */
export const isIpLiteral = (host: string): boolean =>
  (host.startsWith('[') && host.endsWith(']')) || ipaddr.IPv4.isValidFourPartDecimal(host)

/** Policy for a host in any notation: IP literals (after WHATWG folding) by address, names by `forbiddenHostnameReason`. */
export const forbiddenHostReason = (host: string): ForbiddenHostReason | null => {
  const normalized = normalizeHost(host)
  if (normalized === null) return 'invalid_host'
  return isIpLiteral(normalized) ? forbiddenAddressReason(normalized) : forbiddenHostnameReason(normalized)
}

// WHATWG Fetch "bad ports": services that must not receive HTTP-shaped bytes (SMTP, IRC, NFS...).
const BAD_PORTS = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111,
  113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554,
  556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666,
  6667, 6668, 6669, 6679, 6697, 10080,
])

export const forbiddenPortReason = (port: number): 'bad_port' | null =>
  !Number.isInteger(port) || port < 1 || port > 65535 || BAD_PORTS.has(port) ? 'bad_port' : null

/**
 * Canonical host as the WHATWG URL parser writes it for http(s): lower-case, punycode, IPv4 in dotted decimal
 * (decimal, octal, hex and short forms folded), IPv6 compressed in brackets, no trailing dot. Null when invalid.
 */
export const normalizeHost = (host: string): string | null => {
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
  try {
    const url = new URL(`http://${bracketed}/`)
    if (url.href !== `http://${url.hostname}/`) return null // userinfo, port, path, query or fragment smuggled in
    return url.hostname.replace(/\.$/, '')
  } catch {
    return null
  }
}

export const allowlistKey = (host: string, port: number): string | null => {
  const normalized = normalizeHost(host)
  return normalized === null ? null : `${normalized}:${port}`
}

export const isAllowlisted = (allowlist: Allowlist, host: string, port: number): boolean => {
  const key = allowlistKey(host, port)
  return key !== null && allowlist.has(key)
}

/** Parses `SSRF_ALLOWLIST`: comma-separated `host:port` (`[::1]:8080` for IPv6). Throws on a malformed entry. */
export const parseAllowlist = (raw: string | undefined): Allowlist => {
  const entries = new Set<string>()
  for (const item of (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(item)
    const port = match ? Number(match[2]) : NaN
    const key = match && port >= 1 && port <= 65535 ? allowlistKey(match[1], port) : null
    if (key === null) throw new Error(`SSRF allowlist entry must be host:port, got "${item}"`)
    entries.add(key)
  }
  return entries
}

export type TargetUrlCheck =
  | { readonly ok: true; readonly url: URL }
  | { readonly ok: false; readonly code: 'invalid_target_url' | 'unsafe_target_url'; readonly message: string }

export const effectivePort = (url: URL): number => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80)

/**
 * Syntax-level SSRF check at job submission. DNS is not consulted here: the egress gateway checks
 * the resolved addresses of every connection, so a name that resolves inward still fails at fetch time.
 */
export const checkTargetUrl = (raw: string, allowlist: Allowlist): TargetUrlCheck => {
  const invalid = (message: string): TargetUrlCheck => ({ ok: false, code: 'invalid_target_url', message })
  const unsafe = (message: string): TargetUrlCheck => ({ ok: false, code: 'unsafe_target_url', message })
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return invalid('target_url must be an absolute URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return invalid('target_url scheme must be http or https')
  if (url.username || url.password) return unsafe('target_url must not contain credentials')
  if (!url.hostname) return invalid('target_url must have a host')
  const port = effectivePort(url)
  if (isAllowlisted(allowlist, url.hostname, port)) return { ok: true, url }
  const reason = forbiddenHostReason(url.hostname) ?? forbiddenPortReason(port)
  if (reason) return unsafe(`target_url points to a non-public destination (${reason})${reason === 'localhost' ? loopbackHint(allowlist, port) : ''}`)
  return { ok: true, url }
}

/**
 * A `localhost` target refused while the allowlist names a loopback address on its port: entries name addresses (or
 * exact names), so the hint names the entry the user most likely meant and the two ways to reach it.
 */
const loopbackHint = (allowlist: Allowlist, port: number): string => {
  const entry = ['127.0.0.1', '[::1]'].map((address) => allowlistKey(address, port)).find((key) => key !== null && allowlist.has(key))
  return entry ? `; the allowlist has ${entry}: use that address in target_url, or add localhost:${port} to SSRF_ALLOWLIST` : ''
}

/** The host name whose addresses decide a target at submission; null for IP literals and allowlisted names (no lookup needed). */
export const hostToResolve = (url: URL, allowlist: Allowlist): string | null =>
  isIpLiteral(url.hostname) || isAllowlisted(allowlist, url.hostname, effectivePort(url)) ? null : url.hostname

/**
 * Submission-time check of the addresses a target's host name resolves to: refused when every one is forbidden (the
 * name only leads inward). Allowlisted names and `ip:port` entries pass; IP literals were judged by `checkTargetUrl`.
 * The egress gateway still checks each connection, so a name whose answers change later is refused at fetch time.
 */
export const checkResolvedTarget = (url: URL, addresses: readonly string[], allowlist: Allowlist): TargetUrlCheck => {
  const port = effectivePort(url)
  if (addresses.length === 0 || hostToResolve(url, allowlist) === null) return { ok: true, url }
  const refused = addresses.map((address) => (isAllowlisted(allowlist, address, port) ? null : forbiddenAddressReason(address)))
  if (refused.some((reason) => reason === null)) return { ok: true, url }
  return { ok: false, code: 'unsafe_target_url', message: `target_url's host name resolves only to non-public addresses (${refused[0]})` }
}
