import t from 'tap'
import { ownBrowserProcesses } from '../../fetchers/browser/process-tree.js'
import { jobClient, startBrowserSite } from '../fixtures/browser-site.js'
import { startService, waitFor } from '../helpers/service.js'

// Real Chromium processes: a browser killed under a job fails that job with browser_crashed and the next jobs run on a
// new browser; a browser is replaced after BROWSER_PAGES_PER_PROCESS pages.

const site = await startBrowserSite()
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`], env: { BROWSER_PAGES_PER_PROCESS: '3' } })
t.teardown(async () => { await svc.close(); await site.close() })
const { key } = await svc.createOrg('pro')
const jobs = jobClient(svc, key)

const pids = async () => new Set((await ownBrowserProcesses()).map((p) => p.pid))

for (const job_type of ['standard', 'stealth'] as const) {
  t.test(`${job_type}: SIGKILL of the browser during a job fails it with browser_crashed; the next jobs succeed`, async (t) => {
    const before = await pids()
    const mark = site.requests.length
    // The job waits on a page that never finishes loading, so it is surely inside the browser when the kill lands.
    const jobId = await jobs.submit({ job_type, target_url: `${site.origin}/never`, navigation_timeout_ms: 60_000, timeout_ms: 90_000 })
    await waitFor(() => site.requests.slice(mark).some((r) => r.url === '/never'), 30_000, 50)
    const launched = [...await pids()].filter((pid) => !before.has(pid))
    t.equal(launched.length, 1, 'the job runs in a browser process of its own engine')
    process.kill(launched[0]!, 'SIGKILL')

    const crashed = await jobs.result(jobId)
    t.equal(crashed.status, 'failed')
    t.equal(crashed.failure_reason, 'browser_crashed')
    t.match(crashed.failure_message, 'browser process died')
    t.equal(crashed.manifest.engine.tier, job_type)

    for (let i = 0; i < 2; i++) {
      const next = await jobs.run({ job_type, target_url: `${site.origin}/page`, artifact_options: { no_scroll: true } })
      t.equal(next.status, 'succeeded', `job ${i + 1} after the crash: ${next.failure_message}`)
    }
    const now = await pids()
    t.notOk(now.has(launched[0]!), 'the killed process is gone')
    t.equal([...now].filter((pid) => !before.has(pid)).length, 1, 'one new browser serves the following jobs')
  })
}

t.test('a browser process is replaced after BROWSER_PAGES_PER_PROCESS pages', async (t) => {
  const run = () => jobs.run({ job_type: 'standard', target_url: `${site.origin}/page`, headless: false, artifact_options: { no_scroll: true } })
  const before = await pids()
  await run()
  const first = [...await pids()].filter((pid) => !before.has(pid))
  t.equal(first.length, 1, 'a headed browser was launched for this profile')
  await run()
  await run()
  await waitFor(async () => !(await pids()).has(first[0]!), 10_000, 50)
  t.pass('after 3 pages the process was closed')
  const job = await run()
  t.equal(job.status, 'succeeded')
  const second = [...await pids()].filter((pid) => !before.has(pid))
  t.equal(second.length, 1)
  t.not(second[0], first[0], 'the fourth page ran on a new process')
})
