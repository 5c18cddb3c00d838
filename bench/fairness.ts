/**
 * bench:fairness — for each hostile case in bench/fairness/ (a module exporting `fairnessCase`, see case.ts): a fresh
 * service (embedded profile, its own process), a hostile and a victim organization; the victim's light jobs (one
 * harmless regex and one css hook on a small local page) measured alone, then beside the hostile load. Prints the
 * victim's p50/p99 both ways, `ratio: X.XX` (p50 beside ÷ p50 alone; goal at most 1.5) and the worst `/healthz`
 * latency during the hostile phase (goal under 100 ms).
 */
import { readdirSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { startFixtureSite } from '../test/fixtures/site.js'
import { waitFor } from '../test/helpers/service.js'
import { runCli, spawnService } from '../test/helpers/process.js'
import { benchDataDir } from './data-dir.js'
import type { FairnessCase } from './fairness/case.js'
import { fmt, percentile } from './stats.js'
import { serviceClient } from './service-client.js'

const VICTIM_JOBS = Number(process.env.BENCH_VICTIM_JOBS ?? 30)
const only = process.env.BENCH_CASE
// BENCH_CPU_PROF=DIR writes the service's CPU profiles (node --cpu-prof) into DIR when it stops.
const profileDir = process.env.BENCH_CPU_PROF

const dir = fileURLToPath(new URL('./fairness/', import.meta.url))
const cases: FairnessCase[] = []
for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts')).sort()) {
  const module = (await import(pathToFileURL(`${dir}${file}`).href)) as { fairnessCase?: FairnessCase }
  if (module.fairnessCase && (!only || module.fairnessCase.name === only)) cases.push(module.fairnessCase)
}

const site = await startFixtureSite()
const victimJob = { job_type: 'light', target_url: `${site.origin}/page`, extraction: { hooks: [
  { hook_id: 'title', type: 'css', selector: 'title' }, { hook_id: 'word', type: 'regex', pattern: '\\w+' },
] } }

const runCase = async (fairnessCase: FairnessCase) => {
  const setup = fairnessCase.setup ? await fairnessCase.setup() : undefined
  const env = {
    DATA_DIR: benchDataDir(`bench-fairness-${fairnessCase.name}`), LOG_LEVEL: 'error',
    SSRF_ALLOWLIST: [`127.0.0.1:${site.port}`, ...(setup?.allowlist ?? [])].join(','), ...(setup?.env ?? {}),
  }
  const org = async (name: string, plan: string) =>
    (await runCli(env, ['org', 'create', '--name', name, '--plan', plan, '--rate-limit-rpm', '100000', '--daily-quota', '100000000'])).api_key as string
  const victimKey = await org('Victim', 'pro')
  const hostileKey = await org('Hostile', 'pro')
  const service = await spawnService(env, [], profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [])
  const stop = () => service.child.kill('SIGKILL')
  process.on('exit', stop) // also when the bench fails half-way
  await waitFor(async () => (await fetch(`${service.base}/v1/jobs`, { headers: { 'x-api-key': victimKey } })).status === 200, 30_000)
  const client = serviceClient(service.base, { 'x-api-key': victimKey, 'content-type': 'application/json' }, 2)
  const victimRun = async () => {
    const latencies: number[] = []
    for (let i = 0; i < VICTIM_JOBS; i++) {
      const started = performance.now()
      await client.awaitSucceededResult(await client.submitJob(victimJob))
      latencies.push(performance.now() - started)
    }
    return latencies
  }
  await victimRun() // warm-up: workers loaded, connections open
  const alone = await victimRun()
  const abort = new AbortController()
  const hostile = fairnessCase.hostile({ base: service.base, hostileKey, victimKey, signal: abort.signal, setup })
  let worstHealthMs = 0
  let measuring = true
  const health = (async () => {
    while (measuring) {
      const started = performance.now()
      await fetch(`${service.base}/healthz`).then((r) => r.arrayBuffer())
      worstHealthMs = Math.max(worstHealthMs, performance.now() - started)
      await new Promise((r) => setTimeout(r, 50))
    }
  })()
  await new Promise((r) => setTimeout(r, 1_000)) // the hostile load reaches the service first
  const beside = await victimRun()
  measuring = false
  abort.abort()
  await Promise.all([health, hostile])
  await client.close()
  service.child.kill('SIGTERM')
  await service.exited
  process.off('exit', stop)
  await setup?.close()
  return { alone, beside, worstHealthMs }
}

for (const fairnessCase of cases) {
  const { alone, beside, worstHealthMs } = await runCase(fairnessCase)
  console.log(`case ${fairnessCase.name}: victim ${VICTIM_JOBS} jobs`)
  console.log(`  alone   p50 ${fmt(percentile(alone, 50))} ms  p99 ${fmt(percentile(alone, 99))} ms`)
  console.log(`  beside  p50 ${fmt(percentile(beside, 50))} ms  p99 ${fmt(percentile(beside, 99))} ms`)
  console.log(`  ratio: ${(percentile(beside, 50) / percentile(alone, 50)).toFixed(2)}  (p50 beside / alone; goal at most 1.50)`)
  console.log(`  ratio p99: ${(percentile(beside, 99) / percentile(alone, 99)).toFixed(2)}`)
  console.log(`  worst /healthz during the hostile phase: ${fmt(worstHealthMs)} ms (goal under 100 ms)`)
}
await site.close()
process.exit(0)
