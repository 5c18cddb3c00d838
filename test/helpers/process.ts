import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { onFreePort, waitFor } from './service.js'

/**
 * Starts the service as its own OS process (the way `npm start` does), for crash and multi-process tests. `cwd`: the
 * checkout it runs from (the repository's root by default).
 */
export const spawnService = (env: Record<string, string>, args: string[] = [], nodeArgs: string[] = [], cwd?: string) =>
  env.PORT ? spawnOn(Number(env.PORT), env, args, nodeArgs, cwd) : onFreePort((port) => spawnOn(port, env, args, nodeArgs, cwd))

const spawnOn = async (port: number, env: Record<string, string>, args: string[], nodeArgs: string[], cwd: string | undefined) => {
  const servesApi = !args.some((a) => a.includes('roles')) || args.join(' ').includes('api')
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'infra/main.ts', ...args], {
    // Processes without the API announce readiness in their info log.
    env: { ...process.env, LOG_LEVEL: servesApi ? 'warn' : 'info', HOST: '127.0.0.1', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}),
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

const CLI = fileURLToPath(new URL('../../infra/cli.ts', import.meta.url))

/**
 * Runs the CLI the way the README does; answers its exit code and both outputs, whatever the code. `cwd`: the folder
 * it runs in (where it looks for `.env`); the repository's root by default.
 */
export const runCliRaw = (env: Record<string, string>, args: string[], cwd?: string) => new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), CLI, ...args], {
    env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}),
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => { stdout += c })
  child.stderr.on('data', (c: Buffer) => { stderr += c })
  child.on('exit', (code) => resolve({ code, stdout, stderr }))
})

/** Runs the CLI the way the README does with `--json` and answers its parsed output; a non-zero exit is an error. */
export const runCli = async (env: Record<string, string>, args: string[]) => {
  const { code, stdout, stderr } = await runCliRaw(env, [...args, '--json'])
  if (code !== 0) throw new Error(`cli ${args.join(' ')} exited ${code}: ${stderr}`)
  try { return JSON.parse(stdout) } catch { throw new Error(`cli printed no JSON: ${stdout} ${stderr}`) }
}
