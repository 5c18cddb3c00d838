import t from 'tap'
import { startFixtureSite } from '../fixtures/site.js'
import { startService } from '../helpers/service.js'

const site = await startFixtureSite()
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`] })
t.teardown(async () => { await svc.close(); await site.close() })
const { key } = await svc.createOrg('pro')

t.test('a light job fetches the page and its HTML downloads through a signed URL', async (t) => {
  const submitted = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `${site.origin}/page`, tags: ['smoke'] } })
  t.equal(submitted.status, 202)
  t.equal(submitted.body.status, 'queued')
  t.match(submitted.body.job_id, /^[0-9a-f-]{36}$/)
  const result = await svc.waitForResult(key, submitted.body.job_id)
  t.equal(result.status, 200)
  t.equal(result.body.status, 'succeeded', JSON.stringify(result.body))
  t.equal(result.body.manifest.http_status, 200)
  t.equal(result.body.manifest.response_headers['x-fixture'], 'page')
  t.same(result.body.manifest.egress, { mode: 'managed' })
  t.type(result.body.manifest.timing.duration_ms, 'number')
  const html = result.body.artifacts.find((a: any) => a.artifact_type === 'html')
  t.ok(html, 'html artifact present')
  t.match(html.sha256, /^[0-9a-f]{64}$/)
  const link = await svc.api('GET', `/v1/jobs/${submitted.body.job_id}/artifacts/${html.artifact_id}`, { key })
  t.equal(link.status, 200)
  t.ok(Date.parse(link.body.expires_at) > Date.now())
  const download = await fetch(link.body.url)
  t.equal(download.status, 200)
  t.match(await download.text(), /<h1 id="title">Widget<\/h1>/)
  const tampered = await fetch(link.body.url.replace(/sig=[^&]+/, 'sig=AAAA'))
  t.equal(tampered.status, 403)
})
