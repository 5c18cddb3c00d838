import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer as createHttp2Server, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2'
import { createServer as createNetServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Duplex } from 'node:stream'
import { createSecureContext, TLSSocket } from 'node:tls'
import { clientHelloMessage, parseClientHello, type ClientHello } from './client-hello.js'
import { parseHttp2Preface, type Http2Preface } from './http2-preface.js'

/** One TLS connection as the fingerprinting server saw it. */
export interface CapturedConnection {
  readonly hello: ClientHello
  readonly alpn: string | false | null
  /** Null when the connection did not speak HTTP/2 or closed before its first HEADERS. */
  readonly http2: Http2Preface | null
  /** The requests on this connection, headers in wire order, pseudo-headers included. */
  readonly requests: ReadonlyArray<{ readonly path: string; readonly headers: ReadonlyArray<readonly [name: string, value: string]> }>
}

export interface TestCertificates {
  /** PEM file of the test CA (for clients that read a CA file). */
  readonly caFile: string
  readonly key: string
  readonly cert: string
  /** Base64 SHA-256 of the server's public key (Chromium's --ignore-certificate-errors-spki-list). */
  readonly spkiSha256: string
  readonly remove: () => void
}

/** A throw-away CA and a server certificate for localhost and 127.0.0.1 signed by it (openssl). */
export const makeTestCertificates = (): TestCertificates => {
  const dir = mkdtempSync(join(tmpdir(), 'fingerprint-ca-'))
  const file = (name: string) => join(dir, name)
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'pipe'] })
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=Scrapeworks fingerprint test CA', '-keyout', file('ca.key'), '-out', file('ca.pem'))
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', '/CN=localhost',
    '-keyout', file('server.key'), '-out', file('server.csr'))
  writeFileSync(file('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n')
  openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial',
    '-days', '2', '-extfile', file('server.ext'), '-out', file('server.pem'))
  const spki = openssl('x509', '-in', file('server.pem'), '-noout', '-pubkey')
  const der = execFileSync('openssl', ['pkey', '-pubin', '-outform', 'der'], { input: spki })
  const spkiSha256 = execFileSync('openssl', ['dgst', '-sha256', '-binary'], { input: der }).toString('base64')
  return {
    caFile: file('ca.pem'), key: readFileSync(file('server.key'), 'utf8'), cert: readFileSync(file('server.pem'), 'utf8'), spkiSha256,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** A Duplex over `inner` that also hands every byte read from it to `record`. */
const recordingStream = (inner: Duplex, record: (chunk: Buffer) => void): Duplex => {
  const outer = new Duplex({
    read() { inner.resume() },
    write(chunk, _encoding, callback) { inner.write(chunk, callback) },
    final(callback) { inner.end(); callback() },
    destroy(error, callback) { inner.destroy(error ?? undefined); callback(error) },
  })
  inner.on('data', (chunk: Buffer) => { record(chunk); if (!outer.push(chunk)) inner.pause() })
  inner.on('end', () => outer.push(null))
  inner.on('error', (error) => outer.destroy(error))
  inner.on('close', () => outer.destroy())
  return outer
}

export const PAGE_HTML = '<!doctype html><html><head><title>fingerprint</title><link rel="icon" href="data:,"></head><body><h1>fingerprint</h1></body></html>'

/**
 * An HTTPS server (HTTP/2 and HTTP/1.1) that records every connection's raw ClientHello and the client's HTTP/2
 * frames up to its first HEADERS, the way a fingerprinting target would, and answers `/` with a small page.
 */
export const startCaptureServer = async (certificates: TestCertificates) => {
  const connections: CapturedConnection[] = []
  const open = new Set<Socket>()
  const secureContext = createSecureContext({ key: certificates.key, cert: certificates.cert })

  const tcp = createNetServer((socket) => {
    open.add(socket)
    socket.on('close', () => open.delete(socket))
    socket.on('error', () => {})
    const raw: Buffer[] = []
    const decrypted: Buffer[] = []
    const requests: Array<{ path: string; headers: Array<[string, string]> }> = []
    let entry: { hello: ClientHello; alpn: string | false | null; http2: Http2Preface | null; requests: typeof requests } | null = null
    const encrypted = recordingStream(socket, (chunk) => {
      if (entry) return
      raw.push(chunk)
      const message = clientHelloMessage(Buffer.concat(raw))
      if (message) { entry = { hello: parseClientHello(message), alpn: null, http2: null, requests }; connections.push(entry) }
    })
    const secured = new TLSSocket(encrypted, { isServer: true, secureContext, ALPNProtocols: ['h2', 'http/1.1'] })
    secured.on('error', () => socket.destroy())
    secured.once('secure', () => {
      if (entry) entry.alpn = secured.alpnProtocol
      if (secured.alpnProtocol !== 'h2') {
        // HTTP/1.1: one answer, then close; enough for the clients measured here.
        secured.once('data', () => secured.end(`HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${Buffer.byteLength(PAGE_HTML)}\r\nconnection: close\r\n\r\n${PAGE_HTML}`))
        return
      }
      const frames = recordingStream(secured, (chunk) => {
        if (!entry || entry.http2) return
        decrypted.push(chunk)
        entry.http2 = parseHttp2Preface(Buffer.concat(decrypted))
      })
      // A server of its own per connection, so each request is recorded with the connection it came on.
      const http2 = createHttp2Server()
      http2.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, _flags: number, rawHeaders: string[]) => {
        const path = String(headers[':path'])
        requests.push({ path, headers: rawHeaders.flatMap((name, i) => (i % 2 === 0 ? [[name, rawHeaders[i + 1]!] as [string, string]] : [])) })
        stream.on('error', () => {})
        if (path !== '/') { stream.respond({ ':status': 404 }); stream.end(); return }
        stream.respond({ ':status': 200, 'content-type': 'text/html; charset=utf-8' })
        stream.end(PAGE_HTML)
      })
      http2.emit('connection', frames)
    })
  })

  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve))
  const port = (tcp.address() as { port: number }).port
  return {
    port,
    connections: connections as readonly CapturedConnection[],
    close: async () => {
      for (const socket of open) socket.destroy()
      await new Promise<void>((resolve) => tcp.close(() => resolve()))
    },
  }
}
