import type { Server } from 'node:http'
import type { Socket } from 'node:net'

/** Bounds on what a client may hold open before it is authenticated (slow or stalled clients). */
export interface ServerLimits {
  /** Time to receive the request line and headers (answered 408, then closed). */
  readonly headersTimeoutMs: number
  /** Time to receive the whole request, body included (answered 408, then closed). */
  readonly requestTimeoutMs: number
  /** A socket with no traffic in either direction for this long is closed. */
  readonly idleTimeoutMs: number
  /** A kept-alive socket waiting for its next request is closed after this long. */
  readonly keepAliveTimeoutMs: number
  /** Open connections one client address may hold; more are closed at once (0: no cap). */
  readonly maxConnectionsPerAddress: number
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, idleTimeoutMs: 120_000, keepAliveTimeoutMs: 5_000, maxConnectionsPerAddress: 256,
}

/**
 * Fastify and Node server options for the limits. Node checks header and request deadlines on an interval
 * (30 s by default), so the interval follows the shortest deadline to answer stalled clients on time.
 */
export const serverTimeoutOptions = (limits: ServerLimits) => {
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) throw new Error('the headers timeout must not exceed the request timeout')
  const checkEveryMs = Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4)))
  return {
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    http: { headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: checkEveryMs },
  }
}

/**
 * Counts open sockets per remote address and closes any over `max` as soon as it connects, before a byte is
 * read. Behind a reverse proxy every client shares the proxy's address: raise the cap or set it to 0 there.
 */
export const capConnectionsPerAddress = (server: Server, max: number) => {
  if (max <= 0) return
  const open = new Map<string, number>()
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown'
    const count = (open.get(address) ?? 0) + 1
    if (count > max) {
      socket.destroy()
      return
    }
    open.set(address, count)
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1
      if (left <= 0) open.delete(address)
      else open.set(address, left)
    })
  })
}
