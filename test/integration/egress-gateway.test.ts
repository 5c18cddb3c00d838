import http from 'node:http'
import net from 'node:net'
import t from 'tap'
import { Impit } from 'impit'
import { Server as ProxyServer } from 'proxy-chain'
import { request } from 'undici'
import { parseAllowlist } from '../../domain/address-policy.js'
import { pinnedLookup } from '../../fetchers/egress/pinned-lookup.js'
import { egressDispatcher, type EgressGateway, type EgressLogEntry, startEgressGateway, upstreamProxyUrl } from '../../fetchers/egress/index.js'

interface Fixture {
  readonly port: number
  readonly hits: http.IncomingHttpHeaders[]
  close(): Promise<void>
}

const startFixture = async (handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Fixture> => {
  const hits: http.IncomingHttpHeaders[] = []
  const server = http.createServer((req, res) => {
    hits.push(req.headers)
    handler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  return {
    port,
    hits,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  }
}

/** Sends raw bytes to a proxy; after a `200` to CONNECT, sends `tunnelled` through the tunnel. Resolves with all bytes read. */
const rawProxy = (port: number, head: string, tunnelled?: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(head))
    let data = ''
    let sent = false
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => {
      data += chunk
      if (tunnelled && !sent && /^HTTP\/1\.1 200/.test(data) && data.includes('\r\n\r\n')) {
        sent = true
        socket.write(tunnelled)
      }
    })
    socket.on('close', () => resolve(data))
    socket.on('error', reject)
    socket.setTimeout(5000, () => socket.destroy())
  })

const statusLine = (raw: string) => raw.split('\r\n')[0]
const header = (raw: string, name: string) => new RegExp(`^${name}: (.*)$`, 'mi').exec(raw.split('\r\n\r\n')[0] ?? '')?.[1]?.trim()
const get = (path = '/') => `GET ${path} HTTP/1.1\r\nHost: fixture\r\nConnection: close\r\n\r\n`

const secret = await startFixture((_req, res) => res.end('internal secret'))
const fixture = await startFixture((req, res) => {
  if (req.url === '/redirect') {
    res.writeHead(302, { location: `http://127.0.0.1:${secret.port}/secret` }).end()
    return
  }
  res.end(`hello ${req.url}`)
})

const openLog: EgressLogEntry[] = []
const strictLog: EgressLogEntry[] = []
const open = await startEgressGateway({ allowlist: parseAllowlist(`127.0.0.1:${fixture.port}`), log: (e) => openLog.push(e) })
const strict = await startEgressGateway({ allowlist: parseAllowlist(undefined), log: (e) => strictLog.push(e) })
const gateways: EgressGateway[] = [open, strict]

t.teardown(async () => {
  await Promise.all(gateways.map((g) => g.close()))
  await Promise.all([fixture.close(), secret.close()])
})

const target = (path = '/') => `http://127.0.0.1:${fixture.port}${path}`

t.test('(a) allowlisted fixture is reachable through the gateway with impit and undici', async (t) => {
  const impit = new Impit({ proxyUrl: open.url, followRedirects: false })
  const viaImpit = await impit.fetch(target('/impit'))
  t.equal(viaImpit.status, 200)
  t.equal(await viaImpit.text(), 'hello /impit')

  const dispatcher = egressDispatcher(open)
  const viaUndici = await request(target('/undici'), { dispatcher })
  t.equal(viaUndici.statusCode, 200)
  t.equal(await viaUndici.body.text(), 'hello /undici')
  await dispatcher.close()

  t.match(openLog, [{ decision: 'allowed', host: '127.0.0.1', port: fixture.port, addresses: ['127.0.0.1'] }])
})

t.test('(b) the same fixture is refused without an allowlist entry', async (t) => {
  const before = fixture.hits.length
  const impit = new Impit({ proxyUrl: strict.url, followRedirects: false })
  const viaImpit = await impit.fetch(target())
  t.equal(viaImpit.status, 403)
  t.equal(viaImpit.headers.get('x-egress-denied'), 'loopback')

  const dispatcher = egressDispatcher(strict)
  const viaUndici = await request(target(), { dispatcher })
  t.equal(viaUndici.statusCode, 403)
  t.equal(viaUndici.headers['x-egress-denied'], 'loopback')
  await viaUndici.body.dump()
  await dispatcher.close()

  t.equal(fixture.hits.length, before, 'fixture never contacted')
  t.match(strictLog.at(-1), { decision: 'denied', reason: 'loopback', host: '127.0.0.1', port: fixture.port })
  // The allowlist names one port, not the whole host.
  const otherPort = await new Impit({ proxyUrl: open.url, followRedirects: false }).fetch(`http://127.0.0.1:${secret.port}/`)
  t.equal(otherPort.status, 403)
})

t.test('(c) host names resolving to loopback are refused unless the resolved ip:port is allowlisted', async (t) => {
  const strictImpit = new Impit({ proxyUrl: strict.url, followRedirects: false })
  const refused = await strictImpit.fetch(`http://localhost:${fixture.port}/`)
  t.equal(refused.status, 403)
  t.equal(refused.headers.get('x-egress-denied'), 'localhost')

  const allowed = await new Impit({ proxyUrl: open.url, followRedirects: false }).fetch(`http://localhost:${fixture.port}/by-ip`)
  t.equal(allowed.status, 200, 'localhost admitted because 127.0.0.1:port is allowlisted')
  t.equal(await allowed.text(), 'hello /by-ip')

  // A public-looking name whose DNS answer points inward (rebinding) is judged on the answer.
  const answers: Record<string, string[]> = {
    'rebind.example.com': ['127.0.0.1'],
    'metadata.example.com': ['169.254.169.254'],
    'mixed.example.com': ['10.1.2.3', '127.0.0.1'],
    'pinned.invalid': ['127.0.0.1'],
  }
  const resolver = async (name: string) => {
    if (name === 'hang.example.com') return new Promise<never>(() => {})
    if (!(name in answers)) throw new Error('ENOTFOUND')
    return answers[name].map((address) => ({ address, family: 4 as const }))
  }
  const log: EgressLogEntry[] = []
  const allowlist = parseAllowlist(`127.0.0.1:${fixture.port}`)
  const dns = await startEgressGateway({ allowlist, resolver, dnsTimeoutMs: 200, log: (e) => log.push(e) })
  gateways.push(dns)
  const impit = new Impit({ proxyUrl: dns.url, followRedirects: false })

  const rebind = await impit.fetch(`http://rebind.example.com:${secret.port}/`)
  t.equal(rebind.status, 403)
  t.equal(rebind.headers.get('x-egress-denied'), 'loopback')
  const metadata = await impit.fetch('http://metadata.example.com/latest/meta-data/')
  t.equal(metadata.headers.get('x-egress-denied'), 'cloud_metadata')
  const unknown = await impit.fetch('http://nowhere.example.com/')
  t.equal(unknown.status, 502)
  t.equal(unknown.headers.get('x-egress-error'), 'dns_failed')
  const hang = await impit.fetch('http://hang.example.com/')
  t.equal(hang.headers.get('x-egress-error'), 'dns_failed', 'DNS timeout')
  const internal = await impit.fetch('http://db.internal/')
  t.equal(internal.headers.get('x-egress-denied'), 'internal_hostname')

  // `.invalid` never resolves in real DNS: success proves the socket used the gateway's checked answer.
  const pinned = await impit.fetch(`http://pinned.invalid:${fixture.port}/pinned`)
  t.equal(pinned.status, 200)
  t.equal(await pinned.text(), 'hello /pinned')
  const mixed = await impit.fetch(`http://mixed.example.com:${fixture.port}/mixed`)
  t.equal(mixed.status, 200, 'forbidden 10.1.2.3 dropped, allowlisted 127.0.0.1 kept')
  t.match(log.find((e) => e.host === 'mixed.example.com'), { decision: 'allowed', addresses: ['127.0.0.1'] })
})

t.test('(d) IP literals in any notation are refused, for absolute-form and CONNECT', async (t) => {
  const impit = new Impit({ proxyUrl: strict.url, followRedirects: false })
  const decimal = await impit.fetch(`http://2130706433:${fixture.port}/`)
  t.equal(decimal.status, 403)
  t.equal(decimal.headers.get('x-egress-denied'), 'loopback')

  const cases: [string, string][] = [
    [`GET http://2130706433:${fixture.port}/ HTTP/1.1\r\nHost: x\r\n\r\n`, 'loopback'],
    [`GET http://0x7f.1:${fixture.port}/ HTTP/1.1\r\nHost: x\r\n\r\n`, 'loopback'],
    [`GET http://[::ffff:127.0.0.1]:${fixture.port}/ HTTP/1.1\r\nHost: x\r\n\r\n`, 'ipv4_mapped_forbidden'],
    [`GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\nHost: x\r\n\r\n`, 'cloud_metadata'],
    [`CONNECT 127.0.0.1:${fixture.port} HTTP/1.1\r\nHost: x\r\n\r\n`, 'loopback'],
    [`CONNECT 2130706433:${fixture.port} HTTP/1.1\r\n\r\n`, 'loopback'],
    [`CONNECT 0x7f.1:${fixture.port} HTTP/1.1\r\n\r\n`, 'loopback'],
    [`CONNECT 0177.0.0.1:${fixture.port} HTTP/1.1\r\n\r\n`, 'loopback'],
    [`CONNECT [::1]:${fixture.port} HTTP/1.1\r\n\r\n`, 'loopback'],
    [`CONNECT [::ffff:127.0.0.1]:${fixture.port} HTTP/1.1\r\n\r\n`, 'ipv4_mapped_forbidden'],
    [`CONNECT LOCALHOST:${fixture.port} HTTP/1.1\r\n\r\n`, 'localhost'],
    [`CONNECT 169.254.169.254:443 HTTP/1.1\r\n\r\n`, 'cloud_metadata'],
    [`CONNECT 10.0.0.1:443 HTTP/1.1\r\n\r\n`, 'private'],
    [`CONNECT [fd00:ec2::254]:80 HTTP/1.1\r\n\r\n`, 'cloud_metadata'],
    [`CONNECT 8.8.8.8:25 HTTP/1.1\r\n\r\n`, 'bad_port'],
  ]
  for (const [head, reason] of cases) {
    const raw = await rawProxy(strict.port, head)
    t.equal(statusLine(raw), 'HTTP/1.1 403 Forbidden', head.split('\r\n')[0])
    t.equal(header(raw, 'x-egress-denied'), reason, `${head.split('\r\n')[0]} -> ${reason}`)
  }
  const ftp = await rawProxy(strict.port, `GET ftp://8.8.8.8/ HTTP/1.1\r\nHost: x\r\n\r\n`)
  t.match(statusLine(ftp), /^HTTP\/1\.1 400/, 'non-http absolute-form scheme refused')

  // CONNECT honours the allowlist too: the fixture's port tunnels, its neighbour does not.
  const tunnel = await rawProxy(open.port, `CONNECT 127.0.0.1:${fixture.port} HTTP/1.1\r\n\r\n`, get('/tunnel'))
  t.match(statusLine(tunnel), /^HTTP\/1\.1 200/)
  t.match(tunnel, /hello \/tunnel/)
  const neighbour = await rawProxy(open.port, `CONNECT 127.0.0.1:${secret.port} HTTP/1.1\r\n\r\n`, get())
  t.equal(statusLine(neighbour), 'HTTP/1.1 403 Forbidden')
  t.equal(secret.hits.length, 0)
})

t.test('(e) a redirect from the allowlisted fixture to another loopback port is refused on the second hop', async (t) => {
  const impit = new Impit({ proxyUrl: open.url, followRedirects: true, maxRedirects: 5 })
  const followed = await impit.fetch(target('/redirect'))
  t.equal(followed.status, 403, 'the hop to the non-allowlisted port is refused')
  t.equal(followed.headers.get('x-egress-denied'), 'loopback')

  const dispatcher = egressDispatcher(open)
  const first = await request(target('/redirect'), { dispatcher })
  t.equal(first.statusCode, 302)
  await first.body.dump()
  const second = await request(String(first.headers.location), { dispatcher })
  t.equal(second.statusCode, 403)
  await second.body.dump()
  await dispatcher.close()

  t.equal(secret.hits.length, 0, 'the loopback service never saw a request')
  t.match(openLog.at(-1), { decision: 'denied', reason: 'loopback', port: secret.port })
})

t.test('(f) withUpstream chains through a customer proxy with its credentials, never logging them', async (t) => {
  const received: { method: string; username: string; password: string; authorization: string | undefined }[] = []
  const customer = new ProxyServer({
    port: 0,
    host: '127.0.0.1',
    prepareRequestFunction: ({ request, username, password }) => {
      received.push({ method: request.method ?? '', username, password, authorization: request.headers['proxy-authorization'] })
      return { requestAuthentication: username !== 'cust' || password !== 's3cr3t p@ss:word' }
    },
  })
  await customer.listen()
  t.teardown(() => customer.close(true))

  const log: EgressLogEntry[] = []
  const chained = await startEgressGateway({
    allowlist: parseAllowlist(`127.0.0.1:${fixture.port},127.0.0.1:${customer.port}`),
    log: (e) => log.push(e),
  })
  gateways.push(chained)
  const registration = chained.withUpstream(upstreamProxyUrl(`http://127.0.0.1:${customer.port}`, 'cust', 's3cr3t p@ss:word'))
  const token = new URL(registration.proxyUrl).username
  t.match(registration.proxyUrl, new RegExp(`^http://[A-Za-z0-9_-]{32}:x@127\\.0\\.0\\.1:${chained.port}$`))

  const before = fixture.hits.length
  const impit = new Impit({ proxyUrl: registration.proxyUrl, followRedirects: false })
  const viaUpstream = await impit.fetch(target('/chained'))
  t.equal(viaUpstream.status, 200)
  t.equal(await viaUpstream.text(), 'hello /chained')
  t.match(received.at(-1), { method: 'GET', username: 'cust', password: 's3cr3t p@ss:word' }, 'upstream got the customer credentials')
  t.notMatch(received.at(-1)?.authorization ?? '', Buffer.from(`${token}:x`).toString('base64'), 'the gateway token is not forwarded')
  t.equal(fixture.hits[before]?.['proxy-authorization'], undefined, 'target sees no proxy credentials')

  const tunnelHead = `CONNECT 127.0.0.1:${fixture.port} HTTP/1.1\r\nProxy-Authorization: Basic ${Buffer.from(`${token}:x`).toString('base64')}\r\n\r\n`
  const tunnel = await rawProxy(chained.port, tunnelHead, get('/chained-tunnel'))
  t.match(statusLine(tunnel), /^HTTP\/1\.1 200/)
  t.match(tunnel, /hello \/chained-tunnel/)
  t.match(received.at(-1), { method: 'CONNECT', username: 'cust', password: 's3cr3t p@ss:word' })

  // Forbidden targets are still refused before they reach the customer proxy.
  const count = received.length
  const forbidden = await impit.fetch(`http://169.254.169.254/latest/meta-data/`)
  t.equal(forbidden.status, 403)
  t.equal(forbidden.headers.get('x-egress-denied'), 'cloud_metadata')
  t.equal(received.length, count)

  // A customer proxy on a non-public address is refused (here: loopback, not allowlisted on `open`).
  const inward = open.withUpstream(`http://cust:pw@127.0.0.1:${customer.port}`)
  const inwardRes = await new Impit({ proxyUrl: inward.proxyUrl, followRedirects: false }).fetch(target())
  t.equal(inwardRes.status, 403)
  t.equal(inwardRes.headers.get('x-egress-denied'), 'upstream_loopback')
  inward.release()

  registration.release()
  const released = await impit.fetch(target())
  t.equal(released.status, 407, 'released token is unknown')
  const forged = await rawProxy(chained.port, `GET ${target()} HTTP/1.1\r\nHost: x\r\nProxy-Authorization: Basic ${Buffer.from('forged:x').toString('base64')}\r\n\r\n`)
  t.match(statusLine(forged), /^HTTP\/1\.1 407/)

  t.throws(() => chained.withUpstream('socks5://cust:s3cr3t@127.0.0.1:1080'), /http or https/)
  const invalid = (() => {
    try {
      chained.withUpstream('not a url s3cr3t')
    } catch (error) {
      return String(error)
    }
  })()
  t.match(invalid, /not a valid URL/)
  t.notMatch(invalid, 's3cr3t', 'errors do not echo the upstream URL')

  const logged = JSON.stringify([...log, ...openLog])
  t.ok(log.some((e) => e.decision === 'allowed' && e.upstream === `127.0.0.1:${customer.port}`), 'chained requests are logged with the upstream host:port')
  t.notMatch(logged, 's3cr3t', 'no password in the log')
  t.notMatch(logged, 'cust', 'no upstream username in the log')
  t.notMatch(logged, token, 'no gateway token in the log')
})

t.test('pinnedLookup answers only with checked addresses, honouring the requested family', async (t) => {
  const lookup = pinnedLookup([
    { address: '203.0.113.7', family: 4 },
    { address: '2001:db8::7', family: 6 },
  ])
  const ask = (options: { family?: number | 'IPv4' | 'IPv6'; all?: boolean }) =>
    new Promise<unknown>((resolve) => lookup('anything.example', options, (err, address, family) => resolve(err ? (err as NodeJS.ErrnoException).code : [address, family])))
  t.same(await ask({}), ['203.0.113.7', 4])
  t.same(await ask({ family: 6 }), ['2001:db8::7', 6])
  t.same(await ask({ family: 'IPv6' }), ['2001:db8::7', 6])
  t.same(await ask({ all: true, family: 0 }), [[{ address: '203.0.113.7', family: 4 }, { address: '2001:db8::7', family: 6 }], undefined])
  t.equal(await ask({ family: 4, all: true }).then((r) => (r as unknown[])[0]).then((a) => (a as unknown[]).length), 1)
  const v4only = pinnedLookup([{ address: '203.0.113.7', family: 4 }])
  const missing = await new Promise((resolve) => v4only('x', { family: 6 }, (err) => resolve(err?.code)))
  t.equal(missing, 'ENOTFOUND')
})
