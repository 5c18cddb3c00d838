import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { startFixtureSite } from '../fixtures/site.js'
import { runCli, spawnService } from '../helpers/process.js'
import { tempDataDir, waitFor } from '../helpers/service.js'

/**
 * A fresh clone on a machine without Go: the light tier's client (.build/chromium-client) was never built and cannot
 * be. The service runs from a copy of the sources without .build, with a PATH holding only node, so neither the
 * client nor Go is found, whatever this machine has.
 */
const clone = mkdtempSync(join(tmpdir(), 'no-go-clone-'))
for (const dir of ['api', 'commands', 'domain', 'fetchers', 'infra', 'ports', 'processors', 'projections', 'recipes']) cpSync(dir, join(clone, dir), { recursive: true })
for (const file of ['package.json', 'tsconfig.json']) cpSync(file, join(clone, file))
symlinkSync(realpathSync('node_modules'), join(clone, 'node_modules'))
const bin = join(clone, '.path')
mkdirSync(bin)
symlinkSync(process.execPath, join(bin, 'node'))

const site = await startFixtureSite({ '/': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<h1>Demo shop</h1>') } })
const dataDir = tempDataDir('no-go')
const svc = await spawnService({ DATA_DIR: dataDir, PATH: bin, SSRF_ALLOWLIST: `127.0.0.1:${site.port}` }, [], [], clone)
t.teardown(async () => { svc.child.kill('SIGTERM'); await svc.exited; await site.close(); rmSync(clone, { recursive: true, force: true }) })

const FIX = 'install Go (https://go.dev/dl/) and run `npm run build:light-client`'

t.test('npm start warns in one line naming the fix; /healthz reports the light tier unavailable', async (t) => {
  const warnings = svc.stderr().split('\n').filter((line) => line.includes('light tier'))
  t.equal(warnings.length, 1, 'one line')
  t.match(JSON.parse(warnings[0]!), { level: 'warn', msg: `the light tier's HTTP client is not built and Go is not installed: light jobs fail with tier_unavailable until you ${FIX}` })
  const health = await fetch(`${svc.base}/healthz`)
  t.same(await health.json(), { status: 'ok', unavailable_tiers: ['light'] })
})

t.test('a light job fails with tier_unavailable and a message saying why and what fixes it', async (t) => {
  const org = await runCli({ DATA_DIR: dataDir }, ['org', 'create', '--name', 'NoGo', '--plan', 'pro'])
  const headers = { 'x-api-key': org.api_key, 'content-type': 'application/json' }
  const submitted = await fetch(`${svc.base}/v1/jobs`, { method: 'POST', headers, body: JSON.stringify({ job_type: 'light', target_url: `${site.origin}/` }) })
  t.equal(submitted.status, 202)
  const { job_id } = await submitted.json() as { job_id: string }
  let job: { status?: string; failure_reason?: string; failure_message?: string } = {}
  await waitFor(async () => {
    job = await (await fetch(`${svc.base}/v1/jobs/${job_id}`, { headers })).json() as typeof job
    return job.status === 'failed' || job.status === 'succeeded'
  }, 60_000, 100)
  t.match(job, { status: 'failed', failure_reason: 'tier_unavailable' })
  t.equal(job.failure_message, `the light tier's HTTP client is not built and Go is not installed: ${FIX}`, 'says why and names the fix')
  t.equal(site.hits.size, 0, 'the target was never fetched')
})
