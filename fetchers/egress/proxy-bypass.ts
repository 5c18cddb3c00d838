/**
 * A customer proxy's `bypass` list, in the subset of Chromium's syntax that names hosts: entries separated by
 * commas, semicolons or spaces; `*` matches any characters; a leading `.` matches the domain and its subdomains;
 * `:port` narrows an entry to one port; `<local>` matches names without a dot. A bypassed host is still reached
 * through the gateway and its SSRF policy, only not through the customer proxy.
 */
export type BypassMatcher = (host: string, port: number) => boolean

const escapeRegExp = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')

const entryMatcher = (raw: string): BypassMatcher | null => {
  const entry = raw.trim().toLowerCase().replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
  if (entry === '') return null
  if (entry === '<local>') return (host) => !host.includes('.') && !host.includes(':')
  const portMatch = /^(.*?)(?::(\d+))?$/.exec(entry.startsWith('[') ? entry.replace(/^\[(.*)\]/, '$1') : entry)
  const hostPattern = portMatch?.[1] ?? entry
  const port = portMatch?.[2] !== undefined ? Number(portMatch[2]) : undefined
  const pattern = hostPattern.startsWith('.') ? `*${hostPattern}` : hostPattern
  const regex = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`)
  const apex = hostPattern.startsWith('.') ? hostPattern.slice(1) : undefined
  return (host, p) => (port === undefined || port === p) && (regex.test(host) || host === apex)
}

export const parseBypassList = (list: string | undefined): BypassMatcher => {
  const matchers = (list ?? '').split(/[,;\s]+/).map(entryMatcher).filter((m): m is BypassMatcher => m !== null)
  return (host, port) => {
    const bare = host.toLowerCase().replace(/^\[(.*)\]$/, '$1')
    return matchers.some((m) => m(bare, port))
  }
}
