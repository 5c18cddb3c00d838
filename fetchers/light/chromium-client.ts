import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Pool, type Dispatcher } from 'undici'

/**
 * The light tier's HTTP client: chromium-client/ (Go, uTLS and fhttp), a local process that sends each request with
 * the TLS ClientHello and HTTP/2 preface of the Chromium the service ships. This module starts it, built from its
 * source on first use when the binary is missing or older than its source (so it needs Go the first time), and
 * restarts it if it exits. Redirects, retries, limits and the egress gateway's verdicts stay with the engine.
 */
const SOURCE_DIR = fileURLToPath(new URL('./chromium-client/', import.meta.url))
const BINARY = fileURLToPath(new URL('../../.build/chromium-client', import.meta.url))

/** Response header names and values as the target sent them (names lower case). */
export class ResponseHeaders {
  constructor(private readonly entries: ReadonlyArray<readonly [string, string]>) {}
  /** All values of a name, joined as fetch's Headers joins them; null when absent. */
  get(name: string): string | null {
    const values = this.entries.filter(([n]) => n === name.toLowerCase()).map(([, value]) => value)
    return values.length === 0 ? null : values.join(', ')
  }
  forEach(visit: (value: string, name: string) => void): void {
    for (const [name, value] of this.entries) visit(value, name)
  }
}

export interface ClientResponse {
  readonly status: number
  readonly statusText: string
  readonly headers: ResponseHeaders
  /** Decoded when Content-Encoding was exactly one of gzip, deflate, br, zstd (the header is then removed). */
  readonly body: AsyncIterable<Uint8Array>
  /** Drops the body unread (and the connection carrying it). */
  readonly discard: () => void
}

/** The proxy refused the CONNECT tunnel: `status` is its answer (the gateway's 403 policy, 502 resolution). */
export class TunnelRefused extends Error {
  constructor(readonly status: number, message: string) { super(message) }
}

export interface ExchangeRequest {
  /** The transport (connections and TLS sessions) to use; see closeTransport. */
  readonly transport: string
  readonly proxy: string | null
  readonly method: string
  readonly url: string
  /** Sent in this order, with these spellings (HTTP/2 lower-cases names). */
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body?: string
  readonly timeoutMs: number
  readonly signal?: AbortSignal
}

export interface ChromiumClient {
  readonly exchange: (request: ExchangeRequest) => Promise<ClientResponse>
  /** Closes a transport's connections; its id is not used again. */
  readonly closeTransport: (transport: string) => Promise<void>
  readonly stop: () => Promise<void>
}

/** The client is not built and cannot be (no Go): light jobs fail with `tier_unavailable` and this message. */
export class ClientUnavailable extends Error {}

/** The one fix for a missing client, named wherever its absence is reported. */
export const CLIENT_FIX = 'install Go (https://go.dev/dl/) and run `npm run build:light-client`'

const goInstalled = () => { try { execFileSync('go', ['version'], { stdio: 'ignore', timeout: 10_000 }); return true } catch { return false } }

/** Whether the light tier can run: its client built from the current source, or Go there to build it on first use. */
export const lightClientState = (): 'built' | 'buildable' | 'missing' => {
  const built = (() => { try { return statSync(BINARY).mtimeMs } catch { return -1 } })()
  if (built >= 0 && built >= newestSource()) return 'built'
  return goInstalled() ? 'buildable' : 'missing'
}

const newestSource = () => Math.max(...readdirSync(SOURCE_DIR).map((name) => statSync(`${SOURCE_DIR}/${name}`).mtimeMs))

const ensureBinary = async () => {
  const state = lightClientState()
  if (state === 'built') return
  if (state === 'missing') throw new ClientUnavailable(`the light tier's HTTP client is not built and Go is not installed: ${CLIENT_FIX}`)
  // Built beside and renamed, so concurrent processes never run a half-written binary.
  const partial = `${BINARY}.${process.pid}`
  mkdirSync(dirname(BINARY), { recursive: true })
  await promisify(execFile)('go', ['build', '-trimpath', '-o', partial, '.'], { cwd: SOURCE_DIR, maxBuffer: 1 << 24 })
    .catch((error: { stderr?: string; message: string }) => {
      throw new Error(`building the light tier's HTTP client (${SOURCE_DIR}) failed; it needs Go: ${error.stderr ?? error.message}`)
    })
  renameSync(partial, BINARY)
}

interface Running {
  readonly child: ChildProcess
  /** Where to connect: the client's Unix socket, or its loopback port where there is none (Windows). */
  readonly pool: Pool
  readonly token: string
}

/**
 * The client's Unix socket: an exchange's writes then cost the service a fraction of loopback TCP's, whose every
 * write runs the TCP stack for both ends. None on Windows, nor where the temporary folder's path is too long for a
 * socket's name. Removed when the client exits (by the client itself when its stdin closes, i.e. the service died).
 */
const socketPath = () => {
  const path = join(tmpdir(), `sw-chromium-client-${process.pid}-${randomBytes(8).toString('hex')}.sock`)
  return process.platform === 'win32' || Buffer.byteLength(path) > 100 ? null : path
}

const start = async (extraCaFile: string | null): Promise<Running> => {
  await ensureBinary()
  // Without SSL_CERT_FILE, which would replace the system's CA bundle instead of adding to it.
  const { SSL_CERT_FILE: _replacing, ...env } = process.env
  // The client answers only requests bearing this token: its socket is open to other local processes.
  const token = randomBytes(32).toString('hex')
  // stdin stays open: the client exits when it closes, i.e. when this process ends, however it ends.
  const socket = socketPath()
  const child = spawn(BINARY, [], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...env, EXTRA_CA_FILE: extraCaFile ?? '', CLIENT_TOKEN: token, CLIENT_SOCKET: socket ?? '' },
  })
  const port = await new Promise<number>((resolve, reject) => {
    let out = ''
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`the light tier's HTTP client exited at start (code ${code})`)))
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('\n')) resolve(Number(out.split('\n')[0]))
    })
  })
  child.stdout!.removeAllListeners('data').resume()
  // However the client ends (killed at stop, or crashed), its socket goes with it.
  if (socket !== null) child.once('exit', () => rmSync(socket, { force: true }))
  // undici rather than node:http: an exchange's request and response cost the event loop about half as much. No
  // timeouts of its own (the client applies the exchange's, and the job's signal aborts it); the response head
  // carries the target's headers, so it may be large.
  const pool = new Pool(socket === null ? `http://127.0.0.1:${port}` : 'http://localhost', {
    ...(socket === null ? {} : { socketPath: socket }), headersTimeout: 0, bodyTimeout: 0, maxHeaderSize: 1 << 20,
  })
  return { child, pool, token }
}

const bodyOf = async function* (response: Dispatcher.ResponseData): AsyncGenerator<Uint8Array> {
  for await (const chunk of response.body) yield chunk as Buffer
  const broken = response.trailers['x-body-error']
  // The message response-body.ts recognises as corrupt compressed data.
  if (broken === 'decoding') throw new Error('error decoding response body')
  if (broken) throw new Error('the connection to the target broke off while reading the body')
}

const ignore = () => {}

export interface ChromiumClientOptions {
  /** A PEM file of CAs trusted beside the system's CA bundle (Mozilla's roots). */
  readonly extraCaFile: string | null
}

export const makeChromiumClient = (options: ChromiumClientOptions): ChromiumClient => {
  let running: Promise<Running> | null = null
  const ready = () => {
    if (!running) {
      const started = start(options.extraCaFile)
      running = started
      started.then(({ child }) => child.once('exit', () => { if (running === started) running = null }), () => { if (running === started) running = null })
    }
    return running
  }

  const post = async (path: string, body: string, signal?: AbortSignal) => {
    const { pool, token } = await ready()
    return pool.request({
      path, method: 'POST', body, ...(signal ? { signal } : {}),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    })
  }

  return {
    exchange: async (request) => {
      const response = await post('/exchange', JSON.stringify({
        client: request.transport, proxy: request.proxy ?? '', method: request.method, url: request.url,
        headers: request.headers, body: request.body === undefined ? null : Buffer.from(request.body).toString('base64'),
        timeout_ms: Math.max(1, Math.round(request.timeoutMs)),
      }), request.signal)
      // A body dropped unread, or aborted with its job, fails its stream: whoever reads it sees the error, and a
      // body nobody reads any more must not crash the process with it.
      response.body.on('error', ignore)
      if (response.statusCode !== 200) {
        const text = await response.body.text()
        const failure = (() => { try { return JSON.parse(text) as { kind: string; message: string; tunnel_status?: number } } catch { return null } })()
        if (failure?.kind === 'tunnel') throw new TunnelRefused(failure.tunnel_status ?? 0, failure.message)
        if (failure?.kind === 'timeout') throw new Error('timed out')
        throw new Error(failure?.message ?? `the light tier's HTTP client answered ${response.statusCode}: ${text.slice(0, 200)}`)
      }
      const head = JSON.parse(Buffer.from(String(response.headers['x-exchange']), 'base64').toString()) as {
        status: number; status_text: string; headers: Array<[string, string]> | null
      }
      return {
        status: head.status, statusText: head.status_text, headers: new ResponseHeaders(head.headers ?? []),
        body: bodyOf(response), discard: () => { response.body.destroy() },
      }
    },
    closeTransport: async (transport) => {
      if (!running) return
      const response = await post(`/close?client=${encodeURIComponent(transport)}`, '').catch(() => null)
      await response?.body.dump().catch(() => {})
    },
    stop: async () => {
      const current = running
      running = null
      const stopped = await current?.catch(() => null)
      if (!stopped) return
      await stopped.pool.destroy()
      if (stopped.child.exitCode !== null || stopped.child.signalCode !== null) return
      const exited = new Promise((resolve) => stopped.child.once('exit', resolve))
      stopped.child.stdin!.end()
      stopped.child.kill()
      await exited
    },
  }
}
