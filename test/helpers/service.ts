import { mkdtempSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Effect } from 'effect'
import { createApiKey, createOrg, DEFAULT_KEY_LIMITS } from '../../commands/orgs.js'
import { SCOPES } from '../../domain/scopes.js'
import { loadConfig, type Role } from '../../infra/config.js'
import { startProcess } from '../../infra/process.js'
import { startupErrorOf } from '../../infra/startup-error.js'
import type { ClockService } from '../../ports/clock.js'

const freePort = () => new Promise<number>((resolve, reject) => {
  const server = createServer()
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number }
    server.close(() => resolve(port))
  })
  server.on('error', reject)
})

/** What a start on a port that was taken meanwhile throws: the service's own start-up message (StartupError). */
const PORT_TAKEN = /is in use by another process|EADDRINUSE/

/**
 * Starts something that must be told its port in advance, on a port free a moment before; again on another one when
 * that port was taken meanwhile (a test running alongside can get it from its own listen(0) before it is bound). The
 * service cannot listen on port 0 and report its port: it derives its public base URL (signed artifact links, mail
 * links) from PORT before it listens. Servers that need no port in advance listen on 0 instead.
 */
export const onFreePort = async <A>(start: (port: number) => Promise<A>, attempts = 5): Promise<A> => {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort()
    try {
      return await start(port)
    } catch (error) {
      if (attempt >= attempts || !PORT_TAKEN.test(String(startupErrorOf(error) ?? error))) throw error
    }
  }
}

/** Whether a connection to the loopback port is refused (nothing listens there). */
const refused = (port: number) => new Promise<boolean>((resolve) => {
  const socket = connect(port, '127.0.0.1')
  socket.once('connect', () => { socket.destroy(); resolve(false) })
  socket.once('error', () => resolve(true))
})

/**
 * A loopback port nothing listens on, for tests of an unreachable target. Not a port listen(0) answered: that one is
 * in the ephemeral range, where the listen(0) of a test running alongside could take it before it is used. These are
 * below the range (and not among the fetch standard's bad ports, which the gateway refuses on its own).
 */
export const portNothingListensOn = async () => {
  for (const port of [2, 3, 4, 5, 6, 8]) if (await refused(port)) return port
  throw new Error('every candidate for a closed port has a listener')
}

export const tempDataDir = (label = 'sw') => mkdtempSync(join(tmpdir(), `${label}-`))

export interface ApiAnswer<T = any> {
  readonly status: number
  readonly headers: Headers
  readonly body: T
  readonly text: string
}

const silent = { info: () => {}, warn: () => {}, error: () => {} }

/** Starts the real embedded service (SQLite files in a temp folder, real gateway, real engines) on a free port. */
export interface ServiceOptions {
  readonly allowlist?: readonly string[]
  readonly dataDir?: string
  readonly env?: Record<string, string>
  readonly roles?: readonly Role[]
  /** Fixed DNS answers (name → addresses) for submission-time target checks, instead of the system resolver. */
  readonly dns?: Readonly<Record<string, readonly string[]>>
  /** The clock every time-based behaviour reads (a manual clock), instead of the system clock. */
  readonly clock?: ClockService
}

export const startService = async (options: ServiceOptions = {}) => {
  const dataDir = options.dataDir ?? tempDataDir()
  const dns = options.dns
  const { port, config, running } = await onFreePort(async (port) => {
    const config = loadConfig({
      DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent',
      // Tests register many users from one address; the registration limit has its own test, which sets its own.
      SSRF_ALLOWLIST: (options.allowlist ?? []).join(','), REGISTRATIONS_PER_HOUR: '10000', ...options.env,
    })
    const running = await startProcess(config, options.roles ?? config.roles, silent, {
      ...(dns ? { hostResolver: { resolve: (name: string) => Effect.succeed(dns[name.toLowerCase()] ?? null) } } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    })
    return { port, config, running }
  })
  const base = `http://127.0.0.1:${port}`
  const metadata = { correlation_id: 'test', causation_id: null, actor: 'test' }

  const api = async <T = any>(method: string, path: string, init: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}): Promise<ApiAnswer<T>> => {
    const headers: Record<string, string> = { ...(init.key ? { 'x-api-key': init.key } : {}), ...init.headers }
    let body: string | undefined
    if (init.rawBody !== undefined) body = init.rawBody
    else if (init.body !== undefined) { body = JSON.stringify(init.body); headers['content-type'] ??= 'application/json' }
    const res = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) })
    const text = await res.text()
    let parsed: any = text
    try { parsed = JSON.parse(text) } catch { /* not JSON */ }
    return { status: res.status, headers: res.headers, body: parsed as T, text }
  }

  return {
    base, port, dataDir, config, running,
    run: running.run,
    api,
    /** Creates an organization with an all-scopes key, as `cli org create` does. */
    createOrg: async (plan = 'pro', scopes: readonly string[] = SCOPES) => {
      const { org_id } = await running.run(createOrg({ name: `org-${plan}`, plan, metadata }))
      // Tests poll results quickly: a generous request rate, so only tests about rate limits meet it.
      const key = await running.run(createApiKey({ org_id, name: 'test', scopes, limits: { ...DEFAULT_KEY_LIMITS, rate_limit_rpm: 100_000 }, expires_at: null, metadata }))
      await waitFor(async () => (await api('GET', '/v1/jobs', { key: key.secret })).status !== 401)
      return { org_id, key: key.secret, key_id: key.key_id }
    },
    /** Polls the result endpoint until the job finished. */
    waitForResult: async (key: string, jobId: string, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const answer = await api('GET', `/v1/jobs/${jobId}/result`, { key })
        if (answer.status !== 409 && answer.status !== 429) return answer
        if (Date.now() > deadline) throw new Error(`job ${jobId} did not finish in ${timeoutMs} ms`)
        await new Promise((r) => setTimeout(r, 25))
      }
    },
    close: () => running.close(),
  }
}

export const waitFor = async (condition: () => Promise<boolean> | boolean, timeoutMs = 10_000, intervalMs = 20) => {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, intervalMs))
  }
}

export type Service = Awaited<ReturnType<typeof startService>>
