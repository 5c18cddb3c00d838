import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

/**
 * The light tier's client listens on loopback, which every local process shares, and an exchange without a proxy
 * connects directly: it must answer only the engine that started it (the token in CLIENT_TOKEN).
 */
const BINARY = fileURLToPath(new URL('../../.build/chromium-client', import.meta.url))

const startClient = (token: string | undefined, socket = '') => {
  const child = spawn(BINARY, [], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, CLIENT_TOKEN: token ?? '', CLIENT_SOCKET: socket } })
  const port = new Promise<number | null>((resolve) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().split('\n')[0])))
    child.once('exit', () => resolve(null))
    child.once('error', () => resolve(null))
  })
  return { child, port }
}

const exchange = (port: number, authorization?: string) => fetch(`http://127.0.0.1:${port}/exchange`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
  body: JSON.stringify({ client: 't', proxy: '', method: 'GET', url: 'http://127.0.0.1:1/', headers: [], body: null, timeout_ms: 1000 }),
})

t.test('without a token the client does not start', async (t) => {
  const { port } = startClient(undefined)
  t.equal(await port, null)
})

t.test('a request without the token, or with another, is refused before any connection', async (t) => {
  const token = 'a'.repeat(64)
  const { child, port } = startClient(token)
  t.teardown(() => { child.kill() })
  const listening = await port
  if (listening === null) return t.fail('the client did not start')
  t.equal((await exchange(listening)).status, 401, 'no token')
  t.equal((await exchange(listening, `Bearer ${'b'.repeat(64)}`)).status, 401, 'another token')
  t.not((await exchange(listening, `Bearer ${token}`)).status, 401, 'the engine\'s token is let through')
})

t.test('on a Unix socket (what the engine uses): the same refusal, and the socket is gone once the client stops', async (t) => {
  const token = 'c'.repeat(64)
  const socket = join(tmpdir(), `sw-client-token-test-${process.pid}.sock`)
  const { child, port } = startClient(token, socket)
  t.teardown(() => { child.kill() })
  if ((await port) === null) return t.fail('the client did not start')
  const status = (authorization?: string) => new Promise<number>((resolve, reject) => {
    const request = http.request({ socketPath: socket, path: '/exchange', method: 'POST', headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) } }, (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
    request.once('error', reject)
    request.end(JSON.stringify({ client: 't', proxy: '', method: 'GET', url: 'http://127.0.0.1:1/', headers: [], body: null, timeout_ms: 1000 }))
  })
  t.equal(await status(), 401, 'no token')
  t.not(await status(`Bearer ${token}`), 401, 'the engine\'s token is let through')
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.stdin.end()
  await exited
  t.notOk(existsSync(socket), 'the client removed its socket when its stdin closed')
})
