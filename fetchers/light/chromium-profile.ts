/**
 * What the light tier presents to targets: the Chromium the standard tier runs (Debian's `chromium` package, Linux
 * x86_64). Its navigation request headers are here; its TLS ClientHello and HTTP/2 connection preface are in
 * chromium-client/profile.go.
 *
 * The one place its version lives. When Debian's Chromium moves to a new major version, test/api/light-fingerprint
 * fails (it compares this major, the headers and the measured fingerprints with /usr/bin/chromium); bump
 * CHROMIUM_MAJOR (and the version in profile.go), then adjust this file and profile.go until that test is green.
 */
export const CHROMIUM_MAJOR = 156

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

/** Over HTTP/1.1 Chromium sends Host (the client puts it first) and `Connection: keep-alive`, no `priority`, in these spellings. */
const HTTP1_SPELLING: Readonly<Record<string, string>> = {
  'upgrade-insecure-requests': 'Upgrade-Insecure-Requests', 'user-agent': 'User-Agent', accept: 'Accept',
  'sec-fetch-site': 'Sec-Fetch-Site', 'sec-fetch-mode': 'Sec-Fetch-Mode', 'sec-fetch-user': 'Sec-Fetch-User',
  'sec-fetch-dest': 'Sec-Fetch-Dest', 'accept-encoding': 'Accept-Encoding', 'accept-language': 'Accept-Language',
}
const HTTP1_NAVIGATION_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Connection', 'keep-alive'],
  ...NAVIGATION_HEADERS.filter(([name]) => name !== 'priority').map(([name, value]) => [HTTP1_SPELLING[name] ?? name, value] as const),
]

/**
 * The request headers for one request of a job: Chromium's navigation headers in Chromium's order (those of
 * HTTP/2 for https, of HTTP/1.1 for plain http), a job's own value replacing Chromium's in place, headers Chromium
 * does not send appended after them.
 */
export const requestHeaders = (url: URL, own: Readonly<Record<string, string>>): Array<[string, string]> => {
  const overrides = new Map(Object.entries(own).map(([name, value]) => [name.toLowerCase(), value]))
  const chromiums = url.protocol === 'https:' ? NAVIGATION_HEADERS : HTTP1_NAVIGATION_HEADERS
  const merged: Array<[string, string]> = chromiums.map(([name, value]) => {
    const replaced = overrides.get(name.toLowerCase())
    overrides.delete(name.toLowerCase())
    return [name, replaced ?? value]
  })
  return [...merged, ...overrides]
}
