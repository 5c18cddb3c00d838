import { connect } from 'node:net'

const VERDICT_TIMEOUT_MS = 5_000

/**
 * The HTTP client reports a refused CONNECT tunnel without the gateway's status. This asks the gateway again, with a
 * CONNECT of our own for the same host and port, and answers its status (403 policy, 502 resolution), or null when
 * it now opens the tunnel or does not answer. Only called after a tunnel failed; the tunnel is closed unused.
 */
export const tunnelVerdict = (proxyUrl: string, target: URL): Promise<number | null> => new Promise((resolve) => {
  const proxy = new URL(proxyUrl)
  const port = target.port || (target.protocol === 'https:' ? '443' : '80')
  const socket = connect({ host: proxy.hostname.replace(/^\[|\]$/g, ''), port: Number(proxy.port) })
  const done = (status: number | null) => { socket.destroy(); resolve(status) }
  socket.setTimeout(VERDICT_TIMEOUT_MS, () => done(null))
  socket.on('error', () => done(null))
  let head = ''
  socket.on('data', (chunk: Buffer) => {
    head += chunk.toString('latin1')
    const line = head.split('\r\n')[0]
    if (head.includes('\r\n')) done(Number(/^HTTP\/1\.[01] (\d{3})/.exec(line ?? '')?.[1] ?? NaN) || null)
  })
  socket.on('connect', () => socket.write(`CONNECT ${target.hostname}:${port} HTTP/1.1\r\nHost: ${target.hostname}:${port}\r\n\r\n`))
})
