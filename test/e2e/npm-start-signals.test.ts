import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { startFixtureSite } from '../fixtures/site.js'
import { runCli } from '../helpers/process.js'
import { onFreePort, tempDataDir, waitFor } from '../helpers/service.js'

/**
 * `npm start` as an operator runs it, stopped by SIGINT (Ctrl-C) or SIGTERM (a process manager): npm, the service
 * and everything the service started (the light tier's Go client, Chromium) are gone afterwards. Linux: the process
 * tree is read from /proc.
 */
const site = await startFixtureSite({ '/': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<h1>Demo shop</h1>') } })
t.teardown(() => site.close())

/** Every process below `root`, from /proc's parent links. */
const descendants = (root: number) => {
  const parents = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    // The parent is the fourth field of stat, after the name in parentheses (which may hold spaces).
    try { parents.set(Number(entry), Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1])) } catch { /* ended meanwhile */ }
  }
  const found = new Set<number>([root])
  for (let grew = true; grew;) {
    grew = false
    for (const [pid, parent] of parents) if (found.has(parent) && !found.has(pid)) { found.add(pid); grew = true }
  }
  found.delete(root)
  return [...found]
}
const commandOf = (pid: number) => { try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ') } catch { return null } }
/** Gone, or a zombie its (ended) parent left for init to reap. */
const alive = (pid: number) => { try { return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z') } catch { return false } }

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  t.test(`${signal} to npm start stops every process it started`, async (t) => {
    const dataDir = tempDataDir('npm-start')
    const { npm, port, exited, stderr } = await onFreePort(async (port) => {
      const npm = spawn('npm', ['start'], {
        env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', SSRF_ALLOWLIST: `127.0.0.1:${site.port}` },
        stdio: ['ignore', 'ignore', 'pipe'],
      })
      let stderr = ''
      npm.stderr.on('data', (c: Buffer) => { stderr += c })
      const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)))
      // A start on a port taken meanwhile ends with the service's own message, which onFreePort recognises.
      await waitFor(async () => {
        if (npm.exitCode !== null) throw new Error(`npm start exited: ${stderr}`)
        try { return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok } catch { return false }
      }, 180_000, 100)
      return { npm, port, exited, stderr: () => stderr }
    })
    const base = `http://127.0.0.1:${port}`
    // A light and a standard job make the service start the Go client and Chromium.
    const org = await runCli({ DATA_DIR: dataDir }, ['org', 'create', '--name', 'Signals', '--plan', 'pro'])
    const headers = { 'x-api-key': org.api_key, 'content-type': 'application/json' }
    for (const job_type of ['light', 'standard']) {
      const submitted = await fetch(`${base}/v1/jobs`, { method: 'POST', headers, body: JSON.stringify({ job_type, target_url: `${site.origin}/` }) })
      const { job_id } = await submitted.json() as { job_id: string }
      await waitFor(async () => ['succeeded', 'failed'].includes(((await (await fetch(`${base}/v1/jobs/${job_id}`, { headers })).json()) as { status: string }).status), 170_000, 200)
    }
    const started = descendants(npm.pid!)
    const commands = started.map(commandOf).join('\n')
    t.match(commands, /infra\/main\.ts/, 'the service runs under npm')
    t.match(commands, /chromium-client/, "the light tier's client runs")
    t.match(commands, /chromium(?!-client)/, 'Chromium runs')
    npm.kill(signal)
    await exited
    await waitFor(() => started.every((pid) => !alive(pid)), 20_000, 100).catch(() => {})
    t.same(started.filter(alive).map((pid) => `${pid} ${commandOf(pid)}`), [], 'no process outlives npm start')
    t.notMatch(stderr(), /^\s+at /m, 'no stack trace')
  })
}
