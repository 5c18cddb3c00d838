import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { jobClient, startBrowserSite } from '../fixtures/browser-site.js'
import { startService } from '../helpers/service.js'

// A page that takes the browser to a forbidden address after it loaded (meta refresh, location.href, a form) fails
// the job with egress_denied naming that address; the gateway's refusal page is never stored as the target's page.

const site = await startBrowserSite()
// NOT allowlisted: the gateway must refuse every navigation to it.
const outsider: string[] = []
const other = createServer((req, res) => { outsider.push(req.url ?? ''); res.end('secret') })
await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
const otherPort = (other.address() as AddressInfo).port
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`] })
t.teardown(async () => { await svc.close(); await site.close(); other.closeAllConnections(); other.close() })
const { key } = await svc.createOrg('enterprise')
const jobs = jobClient(svc, key)

const forbidden = [
  { how: 'meta', to: `http://127.0.0.1:${otherPort}/secret` },
  { how: 'script', to: 'http://169.254.169.254/latest/meta-data/' },
  { how: 'form', to: `http://127.0.0.1:${otherPort}/submit` },
  // HTTPS: the gateway refuses the CONNECT, which Chromium only sees as a failed tunnel.
  { how: 'script', to: `https://127.0.0.1:${otherPort}/tunnel` },
]

for (const tier of ['standard', 'stealth'] as const) {
  t.test(`${tier}: a page navigating to a forbidden address fails with egress_denied`, async (t) => {
    for (const { how, to } of forbidden) {
      const job = await jobs.run({
        job_type: tier, target_url: `${site.origin}/goes-to?how=${how}&to=${encodeURIComponent(to)}`,
        artifact_options: { include_html: true, include_text: true },
      })
      t.equal(job.status, 'failed', `${how} to ${to}: failed`)
      t.equal(job.failure_reason, 'egress_denied', `${how} to ${to}: egress_denied`)
      t.match(job.failure_message, to, 'the message names the refused URL')
      t.same(job.artifacts, [], 'neither the refusal page nor the fixture page is stored as the result')
      t.not(job.manifest.http_status, 403, 'the gateway\'s 403 is not reported as the target\'s status')
    }
    t.same(outsider, [], 'the forbidden server saw no request')
  })

  t.test(`${tier}: a page navigating to an allowed address still succeeds with the new page`, async (t) => {
    const job = await jobs.run({ job_type: tier, target_url: `${site.origin}/goes-to?how=script&to=${encodeURIComponent('/form-result?name=Ada')}` })
    t.equal(job.status, 'succeeded', job.failure_message)
    t.match(await jobs.artifactText(job, 'html'), 'Hello Ada')
  })
}
