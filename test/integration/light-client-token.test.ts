import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'

/**
 * The light tier's client listens on loopback, which every local process shares, and an exchange without a proxy
 * connects directly: it must answer only the engine that started it (the token in CLIENT_TOKEN).
 */
const BINARY = fileURLToPath(new URL('../../.build/chromium-client', import.meta.url))

const startClient = (token: string | undefined) => {
  const child = spawn(BINARY, [], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, CLIENT_TOKEN: token ?? '' } })
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
