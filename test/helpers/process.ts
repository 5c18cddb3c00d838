import { spawn, type ChildProcess } from 'node:child_process'
import { freePort, waitFor } from './service.js'

/** Starts the service as its own OS process (the way `npm start` does), for crash and multi-process tests. */
export const spawnService = async (env: Record<string, string>, args: string[] = []) => {
  const port = env.PORT ? Number(env.PORT) : await freePort()
  const servesApi = !args.some((a) => a.includes('roles')) || args.join(' ').includes('api')
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'infra/main.ts', ...args], {
    // Processes without the API announce readiness in their info log.
    env: { ...process.env, LOG_LEVEL: servesApi ? 'warn' : 'info', HOST: '127.0.0.1', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  // The API's request log (fastify's logger) goes to stdout, everything else to stderr.
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (c: Buffer) => { stdout += c.toString() })
  child.stderr?.on('data', (c: Buffer) => { stderr += c.toString() })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`service exited: ${stderr}`)
    if (!servesApi) return stderr.includes('scrapeworks started')
    try { return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok } catch { return false }
  }, 180_000, 50).catch((error: unknown) => {
    // A service that never became ready must not outlive the failed test.
    child.kill('SIGKILL')
    throw error
  })
  return { child, port, base: `http://127.0.0.1:${port}`, exited, stdout: () => stdout, stderr: () => stderr }
}

/** Runs the CLI the way the README does and answers its parsed JSON output. */
export const runCli = (env: Record<string, string>, args: string[]) => new Promise<any>((resolve, reject) => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/cli.ts', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', (c: Buffer) => { out += c })
  child.stderr.on('data', (c: Buffer) => { err += c })
  child.on('exit', (code) => {
    if (code !== 0) return reject(new Error(`cli ${args.join(' ')} exited ${code}: ${err}`))
    try { resolve(JSON.parse(out)) } catch { reject(new Error(`cli printed no JSON: ${out} ${err}`)) }
  })
})
