import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import t from 'tap'
import { tempDataDir } from '../helpers/service.js'

/** `npm start`'s process, started the way the start script does; answers its exit code and stderr once it ends. */
const start = (env: Record<string, string>) => new Promise<{ code: number | null; stderr: string }>((resolve) => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/main.ts'], {
    env: { ...process.env, DATA_DIR: tempDataDir('startup'), LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (c: Buffer) => { stderr += c })
  child.on('exit', (code) => resolve({ code, stderr }))
})

t.test('a port in use: one line naming the port and PORT, exit code 1, no stack trace', async (t) => {
  const taken = createServer()
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { taken.close() })
  const port = (taken.address() as { port: number }).port
  const { code, stderr } = await start({ PORT: String(port) })
  t.equal(code, 1)
  t.match(stderr, `scrapeworks: port ${port} on 127.0.0.1 is in use by another process: stop it, or set PORT to a free port\n`)
  t.notMatch(stderr, /^\s+at /m, 'no stack trace')
})

t.test('an unknown setting: one line naming it, exit code 1', async (t) => {
  const { code, stderr } = await start({ REGISTRATION: 'invite-only' })
  t.equal(code, 1)
  t.equal(stderr, 'scrapeworks: REGISTRATION must be one of open, closed, got invite-only\n')
})
