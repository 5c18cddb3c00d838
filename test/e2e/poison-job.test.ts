import Database from 'better-sqlite3'
import { join } from 'node:path'
import t from 'tap'
import { INTERRUPTED_REASON, MAX_JOB_STARTS } from '../../domain/job/restart.js'
import { startFixtureSite } from '../fixtures/site.js'
import { runCli, spawnService } from '../helpers/process.js'
import { tempDataDir, waitFor } from '../helpers/service.js'

// A job whose every attempt dies with its process (here: SIGKILL while the page is being fetched) is started at most
// MAX_JOB_STARTS times; the restart after that fails it instead of starting it again (docs/poison-jobs.md).
const site = await startFixtureSite()
const dataDir = tempDataDir('poison')
const env = { DATA_DIR: dataDir, SSRF_ALLOWLIST: `127.0.0.1:${site.port}` }
t.teardown(() => site.close())

const startsOf = (jobId: string) => {
  const db = new Database(join(dataDir, 'events.db'), { readonly: true })
  const rows = db.prepare('select type from events where stream = ? order by position').all(`job-${jobId}`) as { type: string }[]
  db.close()
  return rows.map((r) => r.type)
}

t.test('SIGKILL mid-job again and again: after the cap the restart fails the job instead of starting it', async (t) => {
  const { api_key: key } = await runCli(env, ['org', 'create', '--name', 'Poison Co', '--plan', 'pro'])
  let service = await spawnService(env)
  const submitted = await fetch(`${service.base}/v1/jobs`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' },
    // The site holds the answer far longer than the test: every attempt is mid-fetch when its process dies.
    body: JSON.stringify({ job_type: 'light', target_url: `${site.origin}/slow?ms=280000`, timeout_ms: 300_000 }),
  })
  t.equal(submitted.status, 202)
  const { job_id: jobId } = (await submitted.json()) as { job_id: string }
  const fetches = () => site.requests.filter((r) => r.url.startsWith('/slow')).length

  for (let attempt = 1; attempt <= MAX_JOB_STARTS; attempt++) {
    await waitFor(() => fetches() === attempt, 60_000, 20)
    t.equal(startsOf(jobId).filter((type) => type === 'JobStarted').length, attempt, `attempt ${attempt} started and is fetching`)
    service.child.kill('SIGKILL')
    await service.exited
    service = await spawnService(env)
  }
  await waitFor(() => startsOf(jobId).includes('JobFailed'), 60_000, 50)
  t.same(startsOf(jobId), ['JobRequested', ...Array(MAX_JOB_STARTS).fill('JobStarted'), 'JobFailed'], 'no fourth start: the restart failed it')
  const job = await (await fetch(`${service.base}/v1/jobs/${jobId}`, { headers: { 'x-api-key': key } })).json() as Record<string, unknown>
  t.match(job, { status: 'failed', failure_reason: INTERRUPTED_REASON })
  t.equal(fetches(), MAX_JOB_STARTS, `the page was fetched ${MAX_JOB_STARTS} times, once per start`)
  service.child.kill('SIGTERM')
  t.equal(await service.exited, 0)
})
