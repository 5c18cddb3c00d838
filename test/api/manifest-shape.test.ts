import t from 'tap'
import { jobClient } from '../fixtures/browser-site.js'
import { startFixtureSite } from '../fixtures/site.js'
import { portNothingListensOn, startService } from '../helpers/service.js'

// Every job manifest, on every tier, has http_status, response_headers, timing and egress: on failed jobs too,
// with null where no response arrived.

const site = await startFixtureSite()
// Allowlisted, but nothing listens there: the connection is refused.
const closedPort = await portNothingListensOn()
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`, `127.0.0.1:${closedPort}`] })
t.teardown(async () => { await svc.close(); await site.close() })
const { key } = await svc.createOrg('enterprise')
const jobs = jobClient(svc, key)

const REQUIRED = ['http_status', 'response_headers', 'timing', 'egress'] as const

for (const tier of ['light', 'standard', 'stealth'] as const) {
  t.test(`${tier}: succeeded and failed jobs carry the same manifest keys`, async (t) => {
    const ok = await jobs.run({ job_type: tier, target_url: `${site.origin}/page` })
    t.equal(ok.status, 'succeeded', ok.failure_message)
    for (const k of REQUIRED) t.ok(k in ok.manifest, `succeeded job has ${k}`)
    t.equal(ok.manifest.http_status, 200)
    t.equal(ok.manifest.response_headers['x-fixture'], 'page')
    t.same(ok.manifest.egress, { mode: 'managed' })
    t.type(ok.manifest.timing.started_at, 'string')

    const refused = await jobs.run({ job_type: tier, target_url: `http://127.0.0.1:${closedPort}/` })
    t.equal(refused.status, 'failed')
    t.equal(refused.failure_reason, 'network_error')
    for (const k of REQUIRED) t.ok(k in refused.manifest, `failed job has ${k}`)
    t.equal(refused.manifest.http_status, null, 'no response arrived')
    t.equal(refused.manifest.response_headers, null)
    t.same(refused.manifest.egress, { mode: 'managed' })
    t.type(refused.manifest.timing.duration_ms, 'number')
    t.equal(refused.manifest.engine.tier, tier)
  })
}

t.test('a failure after the response arrived keeps the target\'s status and headers', async (t) => {
  const failed = await jobs.run({ job_type: 'light', target_url: `${site.origin}/status?code=503` })
  t.equal(failed.failure_reason, 'upstream_error')
  t.equal(failed.manifest.http_status, 503)
  t.equal(failed.manifest.response_headers['content-type'], 'text/html')
})
