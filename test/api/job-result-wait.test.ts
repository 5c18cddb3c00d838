import type { ServerResponse } from 'node:http'
import t from 'tap'
import { makeManualClock } from '../../infra/clock/manual.js'
import { startFixtureSite } from '../fixtures/site.js'
import { startService, waitFor } from '../helpers/service.js'

// A target that answers only when the test lets it, and a manual clock for the wait's deadline.
const hanging: ServerResponse[] = []
const site = await startFixtureSite({ '/hang': (_req, res) => { hanging.push(res) } })
t.teardown(() => { for (const res of hanging) res.destroy(); return site.close() })
const clock = makeManualClock(new Date('2026-05-01T10:00:00Z'))
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`], clock })
t.teardown(() => svc.close())
const { key } = await svc.createOrg('pro')

const submitHanging = async () => {
  const before = hanging.length
  const submitted = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `${site.origin}/hang`, timeout_ms: 120_000 } })
  t.equal(submitted.status, 202)
  await waitFor(() => hanging.length === before + 1, 10_000)
  return { jobId: submitted.body.job_id as string, target: hanging[before]! }
}

t.test('?wait holds the request until the job ends and answers the result', async (t) => {
  const { jobId, target } = await submitHanging()
  let answered = false
  const result = svc.api('GET', `/v1/jobs/${jobId}/result?wait=30`, { key })
  void result.then(() => { answered = true })
  await new Promise((r) => setTimeout(r, 300))
  t.notOk(answered, 'no answer while the job runs')
  target.writeHead(200, { 'content-type': 'text/html' })
  target.end('<html><body><p>Done</p></body></html>')
  const answer = await result
  t.equal(answer.status, 200)
  t.equal(answer.body.job_id, jobId)
  t.equal(answer.body.status, 'succeeded')
  t.equal(answer.body.manifest.http_status, 200)
})

t.test('?wait that runs out on the clock answers 409 result_not_ready, not before', async (t) => {
  const { jobId, target } = await submitHanging()
  const asked = clock.now().getTime()
  let answered = false
  const result = svc.api('GET', `/v1/jobs/${jobId}/result?wait=20`, { key })
  void result.then(() => { answered = true })
  await new Promise((r) => setTimeout(r, 200))
  clock.set(new Date(asked + 19_999))
  await new Promise((r) => setTimeout(r, 300))
  t.notOk(answered, 'no answer 1 ms before the wait runs out')
  clock.set(new Date(asked + 20_000))
  const answer = await result
  t.equal(answer.status, 409)
  t.equal(answer.body.error.code, 'result_not_ready')
  t.match(answer.body.error.message, /within 20 s/)
  // Answered, not destroyed: a request cut on a reused connection is sent again (as Chromium does), which would
  // reach /hang a second time and be taken for the next test's request.
  target.end()
})

t.test('without wait a running job answers 409 at once; an ended job answers 200 at once with any wait', async (t) => {
  const { jobId, target } = await submitHanging()
  const now = await svc.api('GET', `/v1/jobs/${jobId}/result`, { key })
  t.equal(now.status, 409)
  t.equal(now.body.error.code, 'result_not_ready')
  target.writeHead(200, { 'content-type': 'text/html' })
  target.end('<html><body>ok</body></html>')
  await waitFor(async () => (await svc.api('GET', `/v1/jobs/${jobId}`, { key })).body.status === 'succeeded', 10_000)
  const ended = await svc.api('GET', `/v1/jobs/${jobId}/result?wait=60`, { key })
  t.equal(ended.status, 200)
  t.equal(ended.body.status, 'succeeded')
})

t.test('a wait outside 0..60 or not a number is 422 invalid_wait; another organization\'s job is 404 even with wait', async (t) => {
  const { jobId, target } = await submitHanging()
  for (const wait of ['61', '-1', 'soon', '1.5']) {
    const answer = await svc.api('GET', `/v1/jobs/${jobId}/result?wait=${wait}`, { key })
    t.equal(answer.status, 422, `wait=${wait}`)
    t.equal(answer.body.error.code, 'invalid_wait', `wait=${wait}`)
  }
  const other = await svc.createOrg('pro')
  const hidden = await svc.api('GET', `/v1/jobs/${jobId}/result?wait=5`, { key: other.key })
  t.equal(hidden.status, 404)
  target.destroy()
})
