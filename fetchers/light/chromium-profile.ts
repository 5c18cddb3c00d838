import type { CreateTransportOptions, CustomEmulationOptions } from 'wreq-js'

/**
 * What the light tier presents to targets: the Chromium the standard tier runs (Debian's `chromium` package, Linux
 * x86_64), its TLS ClientHello, HTTP/2 connection preface and navigation request headers.
 *
 * The one place its version lives. When Debian's Chromium moves to a new major version, test/api/light-fingerprint
 * fails (it compares this major and the measured fingerprints with /usr/bin/chromium); bump CHROMIUM_MAJOR, take
 * the newest Chrome preset of wreq-js as BASE_PRESET, and adjust the overrides below until that test is green.
 */
export const CHROMIUM_MAJOR = 156

/** The newest Chrome preset of wreq-js (BoringSSL, as Chromium); the overrides below bring it to CHROMIUM_MAJOR. */
const BASE_PRESET = 'chrome_149' as const

/** Chromium's brand list for CHROMIUM_MAJOR, as it sends it (a Chromium build carries no "Google Chrome" brand). */
const SEC_CH_UA = `"Not:A-Brand";v="8", "Chromium";v="${CHROMIUM_MAJOR}"`

export const CHROMIUM_USER_AGENT = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${CHROMIUM_MAJOR}.0.0.0 Safari/537.36`

/** A top-level navigation's headers, names and order as Chromium sends them over HTTP/2 (lower case). */
const NAVIGATION_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['sec-ch-ua', SEC_CH_UA],
  ['sec-ch-ua-mobile', '?0'],
  ['sec-ch-ua-platform', '"Linux"'],
  ['upgrade-insecure-requests', '1'],
  ['user-agent', CHROMIUM_USER_AGENT],
  ['accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,image/jxl,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7'],
  ['sec-fetch-site', 'none'],
  ['sec-fetch-mode', 'navigate'],
  ['sec-fetch-user', '?1'],
  ['sec-fetch-dest', 'document'],
  ['accept-encoding', 'gzip, deflate, br, zstd'],
  ['accept-language', 'en-US,en;q=0.9'],
  ['priority', 'u=0, i'],
]

/**
 * Over HTTP/1.1 Chromium sends Host and `Connection: keep-alive` first, no `priority`, and these spellings; the
 * client applies them to HTTP/1.1 requests only (HTTP/2 names are lower case).
 */
const HTTP1_NAMES = [
  'Host', 'Connection', 'sec-ch-ua', 'sec-ch-ua-mobile', 'sec-ch-ua-platform', 'Upgrade-Insecure-Requests', 'User-Agent',
  'Accept', 'Sec-Fetch-Site', 'Sec-Fetch-Mode', 'Sec-Fetch-User', 'Sec-Fetch-Dest', 'Accept-Encoding', 'Accept-Language',
]
const HTTP1_NAVIGATION_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['connection', 'keep-alive'],
  ...NAVIGATION_HEADERS.filter(([name]) => name !== 'priority'),
]

/**
 * Chromium's HTTP/2 connection preface, measured against Chromium by the fingerprint test: SETTINGS in its order,
 * the connection window raised to 15 MiB, pseudo-headers m,a,s,p and HEADERS exclusive on the root with weight 256
 * (wreq-js's preset sends 220). Given at all, these options replace the preset's HTTP/2 options whole.
 */
const emulation: CustomEmulationOptions = {
  http2Options: {
    headerTableSize: 65_536,
    enablePush: false,
    initialWindowSize: 6_291_456,
    maxHeaderListSize: 262_144,
    settingsOrder: ['HeaderTableSize', 'EnablePush', 'InitialWindowSize', 'MaxHeaderListSize'],
    initialConnectionWindowSize: 15_728_640,
    headersPseudoOrder: ['Method', 'Authority', 'Scheme', 'Path'],
    headersStreamDependency: { dependencyId: 0, weight: 255, exclusive: true },
  },
  origHeaders: HTTP1_NAMES,
}

/** Transport options for one job's connections (the caller adds the egress gateway as proxy). */
export const chromiumTransport: Omit<CreateTransportOptions, 'proxy'> = { browser: BASE_PRESET, os: 'linux', emulation }

/**
 * The request headers for one request of a job: Chromium's navigation headers in Chromium's order (those of
 * HTTP/2 for https, of HTTP/1.1 for plain http), a job's own value replacing Chromium's in place, headers Chromium
 * does not send appended after them.
 */
export const requestHeaders = (url: URL, own: Readonly<Record<string, string>>): Array<[string, string]> => {
  const overrides = new Map(Object.entries(own).map(([name, value]) => [name.toLowerCase(), value]))
  const chromiums = url.protocol === 'https:' ? NAVIGATION_HEADERS : HTTP1_NAVIGATION_HEADERS
  const merged: Array<[string, string]> = chromiums.map(([name, value]) => {
    const replaced = overrides.get(name)
    overrides.delete(name)
    return [name, replaced ?? value]
  })
  return [...merged, ...overrides]
}
