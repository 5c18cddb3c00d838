import t from 'tap'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { startFixtureSite } from '../fixtures/site.js'
import { tempDataDir, waitFor } from '../helpers/service.js'
import { runCli, spawnService } from '../helpers/process.js'

const JOBS = 40
const site = await startFixtureSite()
const dataDir = tempDataDir('crash')
const env = { DATA_DIR: dataDir, SSRF_ALLOWLIST: `127.0.0.1:${site.port}`, FETCHER_CONCURRENCY: '8' }
t.teardown(() => site.close())

t.test('SIGKILL with jobs in flight: every job finishes exactly once and read models equal a replay', async (t) => {
  const { api_key: key } = await runCli(env, ['org', 'create', '--name', 'Crash Co', '--plan', 'pro'])
  let service = await spawnService(env)

  const submit = async (base: string, i: number) => {
    const res = await fetch(`${base}/v1/jobs`, {
      method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' },
      // Half the jobs are slow so that some are in flight when the process dies.
      body: JSON.stringify({ job_type: 'light', target_url: `${site.origin}/${i % 2 ? 'slow?ms=800' : 'page'}`, tags: ['crash'] }),
    })
    t.equal(res.status, 202, `job ${i} accepted`)
    return ((await res.json()) as { job_id: string }).job_id
  }

  const accepted: string[] = []
  for (let i = 0; i < JOBS; i++) accepted.push(await submit(service.base, i))
  await waitFor(() => site.requests.length >= 4, 10_000)
  service.child.kill('SIGKILL')
  await service.exited

  const eventsDb = () => new Database(join(dataDir, 'events.db'), { readonly: true })
  const terminalCounts = () => {
    const db = eventsDb()
    const rows = db.prepare(`select stream, count(*) as n from events where type in ('JobSucceeded', 'JobFailed') group by stream`).all() as { stream: string; n: number }[]
    db.close()
    return new Map(rows.map((r) => [r.stream.slice(4), r.n]))
  }
  t.ok(terminalCounts().size < JOBS, 'some jobs were unfinished when the process was killed')

  service = await spawnService(env)
  await waitFor(() => terminalCounts().size === JOBS, 60_000, 100)
  const counts = terminalCounts()
  t.ok(accepted.every((id) => counts.get(id) === 1), 'every accepted job reached exactly one terminal event')

  const list = await (await fetch(`${service.base}/v1/jobs?tag=crash&per_page=100`, { headers: { 'x-api-key': key } })).json() as { items: { status: string }[] }
  t.equal(list.items.length, JOBS)
  t.ok(list.items.every((j) => j.status === 'succeeded'), 'the read model shows every job succeeded')

  // Read models equal a fresh replay of the log.
  const snapshot = () => {
    const db = new Database(join(dataDir, 'readmodels.db'), { readonly: true })
    const rows = db.prepare('select collection, id, body from docs order by collection, id').all()
    db.close()
    return rows
  }
  service.child.kill('SIGTERM')
  t.equal(await service.exited, 0, 'graceful shutdown exits 0')
  const live = snapshot()
  const replayed = await runCli(env, ['replay'])
  t.ok(replayed.replayed['projection.jobs'] > 0)
  t.same(snapshot(), live, 'read models after replay equal the live ones')
})
