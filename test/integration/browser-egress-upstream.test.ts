import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { Impit } from 'impit'
import { Server as ProxyServer } from 'proxy-chain'
import { parseAllowlist } from '../../domain/address-policy.js'
import { type EgressLogEntry, startEgressGateway, upstreamProxyUrl } from '../../fetchers/egress/index.js'
import { parseBypassList } from '../../fetchers/egress/proxy-bypass.js'

// A dedicated gateway listener chains a browser to a customer proxy without asking the browser for credentials:
// Chromium only sends proxy credentials after a 407, which the shared gateway cannot issue to managed traffic.

const target = http.createServer((req, res) => res.end(`hello ${req.url}`))
await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve))
const targetPort = (target.address() as AddressInfo).port

const received: { method: string; host: string; username: string; password: string }[] = []
const customer = new ProxyServer({
  port: 0, host: '127.0.0.1',
  prepareRequestFunction: ({ request, username, password, hostname }) => {
    received.push({ method: request.method ?? '', host: hostname, username, password })
    return { requestAuthentication: username !== 'cust' || password !== 's3cr3t:pw' }
  },
})
await customer.listen()
t.teardown(async () => { await customer.close(true); target.close() })

const allowlist = parseAllowlist(`127.0.0.1:${targetPort},127.0.0.1:${customer.port}`)
const resolver = async (host: string) => (host.endsWith('.test') ? [{ address: '127.0.0.1', family: 4 as const }] : [])

t.test('every request is chained to the customer proxy with its credentials, except bypassed hosts', async (t) => {
  const log: EgressLogEntry[] = []
  const gateway = await startEgressGateway({
    allowlist, resolver, log: (e) => log.push(e),
    upstream: { url: upstreamProxyUrl(`http://127.0.0.1:${customer.port}`, 'cust', 's3cr3t:pw'), bypass: '*.bypassed.test' },
  })
  t.teardown(() => gateway.close())
  t.equal(gateway.url, `http://127.0.0.1:${gateway.port}`, 'the listener URL carries no credentials')
  const client = new Impit({ proxyUrl: gateway.url, followRedirects: false })

  const before = received.length
  const chained = await client.fetch(`http://127.0.0.1:${targetPort}/via-customer`)
  t.equal(chained.status, 200)
  t.equal(await chained.text(), 'hello /via-customer')
  t.match(received.slice(before), [{ username: 'cust', password: 's3cr3t:pw' }], 'the customer proxy got its credentials')

  const bypassed = await client.fetch(`http://www.bypassed.test:${targetPort}/direct`)
  t.equal(await bypassed.text(), 'hello /direct')
  t.equal(received.length, before + 1, 'a bypassed host does not pass the customer proxy')

  const forbidden = await client.fetch('http://169.254.169.254/latest/')
  t.equal(forbidden.status, 403)
  t.equal(forbidden.headers.get('x-egress-denied'), 'cloud_metadata')
  t.equal(received.length, before + 1, 'a forbidden target never reaches the customer proxy')

  const logged = JSON.stringify(log)
  t.ok(log.some((e) => e.decision === 'allowed' && e.upstream === `127.0.0.1:${customer.port}`))
  t.notMatch(logged, 's3cr3t', 'no password in the log')
  t.notMatch(logged, 'cust', 'no username in the log')
})

t.test('the customer proxy address itself passes the SSRF policy', async (t) => {
  const gateway = await startEgressGateway({
    allowlist: parseAllowlist(`127.0.0.1:${targetPort}`), resolver,
    upstream: { url: `http://cust:s3cr3t:pw@127.0.0.1:${customer.port}` },
  })
  t.teardown(() => gateway.close())
  const before = received.length
  const answer = await new Impit({ proxyUrl: gateway.url, followRedirects: false }).fetch(`http://127.0.0.1:${targetPort}/x`)
  t.equal(answer.status, 403)
  t.equal(answer.headers.get('x-egress-denied'), 'upstream_loopback')
  t.equal(received.length, before)
})

t.test('an invalid customer proxy URL is refused at start without echoing it', async (t) => {
  const error = await startEgressGateway({ allowlist, upstream: { url: 'socks5://cust:s3cr3t@127.0.0.1:1080' } }).then(() => null, (e: unknown) => String(e))
  t.match(error, /http or https/)
  t.notMatch(error ?? '', 's3cr3t')
})

t.test('bypass lists follow Chromium host syntax', async (t) => {
  const match = parseBypassList('*.example.com, .corp.test; intranet:8080 <local>')
  t.ok(match('a.example.com', 80))
  t.notOk(match('example.com', 80), '*.example.com does not match the apex')
  t.ok(match('corp.test', 443), '.corp.test matches the apex')
  t.ok(match('x.y.corp.test', 443))
  t.ok(match('intranet', 8080))
  t.ok(match('printer', 80), '<local> matches names without a dot')
  t.notOk(match('intranet.example.org', 8080))
  t.notOk(parseBypassList(undefined)('anything.com', 80))
})
