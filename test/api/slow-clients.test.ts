import { connect, type Socket } from 'node:net'
import t from 'tap'
import { startService } from '../helpers/service.js'

const svc = await startService({
  roles: ['api'],
  env: { HTTP_HEADERS_TIMEOUT_MS: '800', HTTP_REQUEST_TIMEOUT_MS: '1200', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '4' },
})
t.teardown(() => svc.close())

/** A raw connection that records what the server sent and when it closed. */
const rawClient = (port: number) => new Promise<{ socket: Socket; received: () => string; closed: Promise<number> }>((resolve, reject) => {
  const started = Date.now()
  let data = ''
  const socket = connect(port, '127.0.0.1')
  const closed = new Promise<number>((done) => socket.on('close', () => done(Date.now() - started)))
  socket.on('data', (chunk) => { data += chunk.toString() })
  socket.on('error', () => {})
  socket.once('connect', () => resolve({ socket, received: () => data, closed }))
  socket.once('error', reject)
})

/** Milliseconds from connecting to closing, or -1 when still open after `ms`. */
const closedWithin = (client: { closed: Promise<number> }, ms: number) => Promise.race([client.closed, new Promise<number>((r) => setTimeout(() => r(-1), ms))])

const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))

t.test('a stalled body is answered 408 in the error body shape and the connection closed, without authentication', async (t) => {
  const client = await rawClient(svc.port)
  client.socket.write('POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"job_type":')
  const closedAfter = await closedWithin(client, 5_000)
  t.ok(closedAfter >= 0, `closed after ${closedAfter} ms`)
  t.match(client.received(), /^HTTP\/1\.1 408 /)
  t.equal(client.received() && bodyOf(client.received()).error.code, 'request_timeout')
})

t.test('stalled headers are answered 408 and the connection closed', async (t) => {
  const client = await rawClient(svc.port)
  client.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ')
  const closedAfter = await closedWithin(client, 5_000)
  t.ok(closedAfter >= 0, `closed after ${closedAfter} ms`)
  t.match(client.received(), /^HTTP\/1\.1 408 /)
})

t.test('one address holds at most the configured number of connections', async (t) => {
  const held = await Promise.all(Array.from({ length: 4 }, () => rawClient(svc.port)))
  const extra = await rawClient(svc.port)
  t.ok(await closedWithin(extra, 600) >= 0, 'the fifth connection is closed at once')
  t.equal(extra.received(), '', 'and answered nothing')
  for (const client of held) client.socket.destroy()
  await Promise.all(held.map((c) => c.closed))
  await new Promise((r) => setTimeout(r, 50))
  t.equal((await svc.api('GET', '/healthz')).status, 200, 'closed connections free their slots')
})
