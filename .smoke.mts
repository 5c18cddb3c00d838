import { startBrowserSite } from './test/fixtures/browser-site.js'
import { startService } from './test/helpers/service.js'
const site = await startBrowserSite()
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`] })
const { key } = await svc.createOrg('pro')
const run = async (body: any) => {
  const t0 = Date.now()
  const s = await svc.api('POST', '/v1/jobs', { key, body })
  if (s.status !== 202) { console.log(s.status, s.text); return }
  const r = await svc.waitForResult(key, s.body.job_id)
  console.log(body.job_type, body.target_url.slice(-20), Date.now() - t0, 'ms', r.body.status, r.body.failure_reason, r.body.failure_message, JSON.stringify(r.body.manifest).slice(0, 600), r.body.artifacts?.map((a: any) => a.artifact_type + ':' + a.size))
  return r.body
}
const all = { include_screenshot: true, include_har: true, include_reader: true, include_links: true, include_text: true, include_page_metadata: true, include_console: true }
await run({ job_type: 'standard', target_url: `${site.origin}/app.html`, artifact_options: all })
await run({ job_type: 'stealth', target_url: `${site.origin}/app.html`, artifact_options: all })
await run({ job_type: 'stealth', target_url: `${site.origin}/challenge` })
await run({ job_type: 'standard', target_url: `${site.origin}/never`, navigation_timeout_ms: 2000 })
console.log(site.requests.map(r => r.url).join(' '))
await svc.close(); await site.close()
