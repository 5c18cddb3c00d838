import { startBrowserSite } from './test/fixtures/browser-site.js'
import { startService } from './test/helpers/service.js'
const site = await startBrowserSite()
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`] })
const { key } = await svc.createOrg('pro')
const fetchArt = async (job: any, type: string) => { const a = job.artifacts.find((x: any) => x.artifact_type === type); const l = await svc.api('GET', `/v1/jobs/${job.job_id}/artifacts/${a.artifact_id}`, { key }); return await (await fetch(l.body.url)).text() }
const run = async (body: any) => {
  const s = await svc.api('POST', '/v1/jobs', { key, body })
  return (await svc.waitForResult(key, s.body.job_id)).body
}
const all = { include_har: true, include_reader: true, include_links: true, include_text: true, include_page_metadata: true, include_console: true }
for (const tier of ['standard', 'stealth']) {
  const j = await run({ job_type: tier, target_url: `${site.origin}/app.html`, artifact_options: all })
  for (const t of ['console', 'links', 'page_metadata', 'reader', 'text']) console.log(tier, t, (await fetchArt(j, t)).slice(0, 700))
  const har = JSON.parse(await fetchArt(j, 'har')); console.log(tier, 'har', har.log.entries.map((e: any) => `${e.request.url.slice(-20)} ${e.response.status} ${e._resourceType} ${e.time}`))
  console.log(tier, (await fetchArt(j, 'html')).includes('lazy-loaded'), (await fetchArt(j, 'html')).includes('Rendered by JavaScript'))
}
await svc.close(); await site.close()
