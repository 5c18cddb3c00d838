import { Effect } from 'effect'
import t from 'tap'
import { handle } from '../../commands/handle.js'
import { jobDecider } from '../../domain/job/decider.js'
import { validateJobSpec } from '../../domain/job/spec.js'
import { STREAMS } from '../../domain/streams.js'
import { EventStore } from '../../ports/event-store.js'
import { startFixtureSite } from '../fixtures/site.js'
import { startService } from '../helpers/service.js'

// Two fetch slots; another organization's 1,000 jobs, each held 300 ms by the site, were requested first.
const HOSTILE_JOBS = 1000
const site = await startFixtureSite()
const allowlist = [`127.0.0.1:${site.port}`]
const svc = await startService({ allowlist, env: { FETCHER_CONCURRENCY: '2' } })
t.teardown(async () => { await svc.close(); await site.close() })

const metadata = { correlation_id: 'test', causation_id: null, actor: 'test' }
const specOf = (path: string) => {
  const checked = validateJobSpec({ job_type: 'light', target_url: `${site.origin}${path}` }, { allowlist: new Set(allowlist), isTimeZone: () => true })
  if (!checked.ok) throw new Error('invalid test spec')
  return checked.spec
}

t.test('one organization\'s 1,000 queued jobs do not hold back another organization\'s single job', async (t) => {
  const hostile = await svc.createOrg('enterprise')
  const victim = await svc.createOrg('pro')
  const slow = specOf('/slow?ms=300')
  // Recorded straight on the log, as a burst of admitted jobs (monitor runs, a large plan) would be.
  for (let i = 0; i < HOSTILE_JOBS; i++) {
    await svc.run(handle(jobDecider, STREAMS.job.stream(`hostile-${i}`), {
      _tag: 'RequestJob', origin: { _tag: 'api' }, job_id: `hostile-${i}`, org_id: hostile.org_id, api_key_id: null, spec: slow, now: new Date().toISOString(),
    }, { org_id: hostile.org_id, metadata }))
  }
  const submitted = await svc.api('POST', '/v1/jobs', { key: victim.key, body: { job_type: 'light', target_url: `${site.origin}/page` } })
  t.equal(submitted.status, 202)
  const started = Date.now()
  const result = await svc.waitForResult(victim.key, submitted.body.job_id, 20_000)
  const waited = Date.now() - started
  t.equal(result.status, 200, 'the victim\'s job succeeded')
  // Behind all of them it would wait 1,000 x 300 ms / 2 slots = 150 s.
  t.ok(waited < 5_000, `the victim's job finished ${waited} ms after it was submitted`)
  const events = await svc.run(Effect.flatMap(EventStore, (store) => store.readAll(0, 100_000)))
  const hostileDone = events.filter((e) => e.type === 'JobSucceeded' && e.org_id === hostile.org_id).length
  t.ok(hostileDone < HOSTILE_JOBS / 4, `the other organization's backlog was still being served (${hostileDone} of ${HOSTILE_JOBS} done)`)
})
