import { startBrowserSite, jobClient } from './test/fixtures/browser-site.js'
import { startService } from './test/helpers/service.js'
const site = await startBrowserSite()
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`] })
const { key } = await svc.createOrg('pro')
const jobs = jobClient(svc, key)
let bad = 0
for (let i = 0; i < 8; i++) {
  const tier = i % 2 ? 'stealth' : 'standard'
  const j = await jobs.run({ job_type: tier, target_url: `${site.origin}/app.html`, headless: false })
  const html = await jobs.artifactText(j, 'html')
  const ok = html.includes('Lazy content loaded')
  if (!ok) bad++
  console.log(tier, j.status, ok, JSON.stringify(j.manifest.auto_scroll), j.manifest.timing.duration_ms)
}
console.log('bad', bad)
await svc.close(); await site.close()
