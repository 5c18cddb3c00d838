/**
 * The light tier's fingerprint against the Chromium the service ships, measured in one run: a local TLS server
 * records each ClientHello and HTTP/2 preface of real light jobs (through the service and its egress gateway) and of
 * /usr/bin/chromium navigating to it, and compares what a fingerprinting target would compute (JA4, Akamai HTTP/2).
 */
import { createServer } from 'node:http'
import t from 'tap'
import { chromium } from 'playwright-core'
import { CHROMIUM_MAJOR } from '../../fetchers/light/chromium-profile.js'
import { BASE_CHROMIUM_FLAGS } from '../../fetchers/browser/launch-flags.js'
import { makeTestCertificates, PAGE_HTML, startCaptureServer, type CapturedConnection } from '../helpers/fingerprint/capture-server.js'
import { EXT, extensionLength, extensionOrder, greasePlaces, hex, isGrease, ja4, libraryNamesInExtensions } from '../helpers/fingerprint/client-hello.js'
import { akamaiFingerprint } from '../helpers/fingerprint/http2-preface.js'
import { startService } from '../helpers/service.js'

const CHROMIUM_PATH = '/usr/bin/chromium'
/** Enough connections that a client permuting extensions or varying the ECH GREASE length cannot look fixed by chance. */
const CONNECTIONS = 8

const certificates = makeTestCertificates()
const server = await startCaptureServer(certificates)
const target = `https://localhost:${server.port}/`
// Plain HTTP (HTTP/1.1): where header spelling and order are all a target sees of the client.
const plainRequests: string[][] = []
const plain = createServer((request, response) => {
  if (request.url === '/') plainRequests.push(request.rawHeaders)
  response.writeHead(request.url === '/' ? 200 : 404, { 'content-type': 'text/html' }).end(request.url === '/' ? PAGE_HTML : '')
})
await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve))
const plainTarget = `http://localhost:${(plain.address() as { port: number }).port}/`
// The service's light tier trusts the CAs of SSL_CERT_FILE beside the system's: this service, and only it, trusts the test CA.
const svc = await startService({ allowlist: [`localhost:${server.port}`, new URL(plainTarget).host], env: { SSL_CERT_FILE: certificates.caFile } })
t.teardown(async () => {
  await svc.close(); await server.close(); certificates.remove()
  plain.closeAllConnections(); await new Promise((resolve) => plain.close(resolve))
})
const { key } = await svc.createOrg('pro')

const newConnections = async (run: () => Promise<void>): Promise<CapturedConnection[]> => {
  const before = server.connections.length
  await run()
  return server.connections.slice(before)
}

// An organization of its own per job, as Chromium's context per navigation: the light tier shares connections only
// among one organization's jobs (fetchers/light/transport-pool.ts), so each job opens a new connection.
const light = await newConnections(async () => {
  for (let i = 0; i < CONNECTIONS; i++) {
    const { key } = await svc.createOrg('pro')
    const submitted = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: target } })
    const result = await svc.waitForResult(key, submitted.body.job_id)
    if (result.body.status !== 'succeeded') throw new Error(`light job failed: ${JSON.stringify(result.body)}`)
  }
})
const plainLight = await (async () => {
  const submitted = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: plainTarget } })
  const result = await svc.waitForResult(key, submitted.body.job_id)
  if (result.body.status !== 'succeeded') throw new Error(`light job failed: ${JSON.stringify(result.body)}`)
  return plainRequests.splice(0)
})()

let chromiumVersion = ''
const navigations = await newConnections(async () => {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH, headless: true,
    args: [...BASE_CHROMIUM_FLAGS, `--ignore-certificate-errors-spki-list=${certificates.spkiSha256}`],
  })
  try {
    chromiumVersion = browser.version()
    // A context of its own per navigation: a new connection each time, no session to resume.
    for (let i = 0; i < CONNECTIONS; i++) {
      const context = await browser.newContext()
      await (await context.newPage()).goto(target)
      await context.close()
    }
    const context = await browser.newContext()
    await (await context.newPage()).goto(plainTarget)
    await context.close()
  } finally {
    await browser.close()
  }
})

const navigationRequest = (connection: CapturedConnection) => connection.requests.find((r) => r.path === '/')
const akamai = (connection: CapturedConnection) => akamaiFingerprint(connection.http2!, navigationRequest(connection)?.headers.map(([name]) => name) ?? [])
const distinct = <T>(values: readonly T[]) => [...new Set(values)]
const ML_DSA = [0x0904, 0x0905, 0x0906]

t.test('both clients were measured on HTTP/2', async (t) => {
  t.equal(light.length, CONNECTIONS, 'one connection per light job')
  t.equal(navigations.length, CONNECTIONS, 'one connection per Chromium navigation')
  for (const c of [...light, ...navigations]) {
    t.equal(c.alpn, 'h2')
    t.ok(c.http2, 'HTTP/2 preface and first HEADERS captured')
    t.ok(navigationRequest(c), 'the page was requested on this connection')
  }
})

const chromiumJa4 = distinct(navigations.map((c) => ja4(c.hello)))
const lightJa4 = distinct(light.map((c) => ja4(c.hello)))
const chromiumHttp2 = distinct(navigations.map(akamai))
const lightHttp2 = distinct(light.map(akamai))
t.comment(`Chromium ${chromiumVersion}: JA4 ${chromiumJa4.join(' ')}  HTTP/2 ${chromiumHttp2.join(' ')}`)
t.comment(`light tier (Chromium ${CHROMIUM_MAJOR} profile): JA4 ${lightJa4.join(' ')}  HTTP/2 ${lightHttp2.join(' ')}`)

t.test('the impersonated version is the Chromium the service ships', async (t) => {
  t.equal(Number(chromiumVersion.split('.')[0]), CHROMIUM_MAJOR, `chromium-profile.ts CHROMIUM_MAJOR follows ${CHROMIUM_PATH}`)
})

t.test('TLS: JA4 equals Chromium\'s', async (t) => {
  t.equal(chromiumJa4.length, 1, 'Chromium\'s JA4 is stable across connections')
  t.equal(lightJa4.length, 1, 'the light tier\'s JA4 is stable across connections')
  t.equal(lightJa4[0], chromiumJa4[0], 'equal JA4')
})

t.test('TLS: the same ClientHello contents as Chromium\'s', async (t) => {
  const set = (c: CapturedConnection) => c.hello.extensions.map((e) => e.type).filter((type) => !isGrease(type)).sort((a, b) => a - b).map(hex).join(',')
  const reference = navigations[0]!.hello
  const withoutGrease = (values: readonly number[]) => values.filter((v) => !isGrease(v)).map(hex).join(',')
  const data = (c: CapturedConnection, type: number) => c.hello.extensions.find((e) => e.type === type)?.data.toString('hex')
  for (const c of light) {
    t.equal(set(c), set(navigations[0]!), 'Chromium\'s extensions')
    t.equal(withoutGrease(c.hello.ciphers), withoutGrease(reference.ciphers), 'cipher suites in Chromium\'s order')
    t.equal(withoutGrease(c.hello.groups), withoutGrease(reference.groups), 'supported groups (X25519MLKEM768 first)')
    t.equal(withoutGrease(c.hello.keyShareGroups), withoutGrease(reference.keyShareGroups), 'key shares')
    t.equal(withoutGrease(c.hello.supportedVersions), withoutGrease(reference.supportedVersions), 'supported versions')
    t.same(c.hello.alpn, reference.alpn, 'ALPN')
    t.equal(withoutGrease(c.hello.signatureAlgorithms), withoutGrease(reference.signatureAlgorithms), 'signature algorithms, ML-DSA first')
    t.ok(ML_DSA.every((s) => c.hello.signatureAlgorithms.includes(s)), 'ML-DSA signature algorithms offered')
    t.equal(isGrease(c.hello.signatureAlgorithms[0] ?? 0), isGrease(reference.signatureAlgorithms[0] ?? 0), 'a GREASE signature algorithm first, as Chromium')
    t.equal(data(c, EXT.trustAnchors), data(navigations[0]!, EXT.trustAnchors), 'trust anchor identifiers (0xca34) with Chromium\'s contents')
    t.ok(c.hello.extensions.some((e) => e.type === EXT.alpsNew) && !c.hello.extensions.some((e) => e.type === EXT.alpsOld), 'ALPS on the new code point (0x44cd)')
    t.equal(data(c, EXT.alpsNew), data(navigations[0]!, EXT.alpsNew), 'ALPS for h2 only, as Chromium')
  }
  const sigalgGrease = (connections: CapturedConnection[]) => distinct(connections.map((c) => c.hello.signatureAlgorithms[0]))
  t.ok(sigalgGrease(navigations).length > 1, 'Chromium draws its signature algorithm GREASE value per connection (reference)')
  t.ok(sigalgGrease(light).length > 1, 'the light tier draws its signature algorithm GREASE value per connection')
})

t.test('TLS: GREASE everywhere Chromium puts it', async (t) => {
  for (const c of navigations) t.same(greasePlaces(c.hello), { ciphers: true, extensions: true, groups: true, versions: true }, 'Chromium (reference)')
  for (const c of light) t.same(greasePlaces(c.hello), { ciphers: true, extensions: true, groups: true, versions: true }, 'light tier')
})

t.test('TLS: extension order and ECH GREASE length vary across connections like Chromium\'s', async (t) => {
  t.equal(distinct(navigations.map((c) => extensionOrder(c.hello))).length, CONNECTIONS, 'Chromium permutes its extensions on every connection (reference)')
  t.equal(distinct(light.map((c) => extensionOrder(c.hello))).length, CONNECTIONS, 'the light tier permutes its extensions on every connection')
  const echLengths = (connections: CapturedConnection[]) => distinct(connections.map((c) => extensionLength(c.hello, EXT.echOuter)))
  t.ok(echLengths(navigations).length > 1, `Chromium's ECH GREASE lengths vary: ${echLengths(navigations).join(',')} (reference)`)
  t.ok(echLengths(light).length > 1, `the light tier's ECH GREASE lengths vary: ${echLengths(light).join(',')}`)
})

t.test('TLS: no client library name in any extension', async (t) => {
  for (const c of [...navigations, ...light]) t.same(libraryNamesInExtensions(c.hello), [])
})

t.test('HTTP/2: Akamai fingerprint and HEADERS priority equal Chromium\'s', async (t) => {
  t.equal(chromiumHttp2.length, 1, 'Chromium\'s HTTP/2 fingerprint is stable')
  t.same(lightHttp2, chromiumHttp2, 'equal Akamai HTTP/2 fingerprint')
  for (const c of light) t.same(c.http2!.headersPriority, navigations[0]!.http2!.headersPriority, 'HEADERS priority (exclusive, weight 256)')
})

t.test('request headers: names, order and values of Chromium\'s navigation request', async (t) => {
  const reference = navigationRequest(navigations[0]!)!.headers
  // Headless Chromium names itself HeadlessChrome in its User-Agent; the Chromium a person runs does not.
  const asHeaded = reference.map(([name, value]) => [name, name === 'user-agent' ? value.replace('HeadlessChrome/', 'Chrome/') : value] as const)
  for (const c of light) {
    const sent = navigationRequest(c)!.headers
    t.same(sent.map(([name]) => name), reference.map(([name]) => name), 'header names in Chromium\'s order')
    t.same(sent, asHeaded, 'header values of Chromium\'s (User-Agent as headed Chromium sends it)')
  }
  t.match(Object.fromEntries(navigationRequest(light[0]!)!.headers)['user-agent'], `Chrome/${CHROMIUM_MAJOR}.0.0.0`, 'the User-Agent names the shipped major version')
})

t.test('request headers over HTTP/1.1: spelling, order and values of Chromium\'s navigation request', async (t) => {
  const reference = plainRequests[0]!
  t.equal(plainLight.length, 1, 'one request from the light job')
  const pairs = (raw: readonly string[]) => raw.flatMap((item, i) => (i % 2 === 0 ? [[item, raw[i + 1]!] as const] : []))
  const asHeaded = pairs(reference).map(([name, value]) => [name, name === 'User-Agent' ? value.replace('HeadlessChrome/', 'Chrome/') : value] as const)
  const sent = pairs(plainLight[0]!)
  // The light tier sends plain HTTP through a CONNECT tunnel of the egress gateway, so its Connection header arrives as sent.
  t.same(sent, asHeaded, 'Chromium\'s headers including Connection: keep-alive second')
})
