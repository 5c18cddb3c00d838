import { startBrowserSite, jobClient } from './test/fixtures/browser-site.js'
import { startService } from './test/helpers/service.js'
const site = await startBrowserSite()
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`] })
const { key } = await svc.createOrg('pro')
const jobs = jobClient(svc, key)
for (const path of ['/page', '/app.html', '/page', '/app.html', '/app.html']) {
  const t0 = Date.now()
  const j = await jobs.run({ job_type: 'standard', target_url: `${site.origin}${path}`, artifact_options: { no_scroll: true, include_har: true } })
  const har = await jobs.artifactJson(j, 'har')
  console.log(path, Date.now() - t0, j.status, JSON.stringify(j.manifest.timing), har.log.entries.map((e: any) => `${e.request.url.slice(-14)}:${e.time}:${e.response.status}`).join(' '))
}
await svc.close(); await site.close()
