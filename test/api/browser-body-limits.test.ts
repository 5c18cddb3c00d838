import zlib from 'node:zlib'
import t from 'tap'
import { gzipBomb } from '../fixtures/bombs.js'
import { jobClient } from '../fixtures/browser-site.js'
import { startFixtureSite } from '../fixtures/site.js'
import { startService } from '../helpers/service.js'

// Browser tiers decode bodies inside Chromium; what they copy into the service (rendered document, response body)
// is size-checked in the page first, so an oversized page fails with response_too_large instead of being buffered.

const MB = 1024 * 1024
/** 40 MB of text in a comment: tiny on the wire, over the 25 MB limit once rendered. */
const hugeDocument = zlib.gzipSync(`<!doctype html><html><head><title>Huge</title></head><body><p id="ok">small</p><!--${'a'.repeat(40 * MB)}--></body></html>`)
/** A "picture" that inflates to 256 MiB: the rendered document is one <img>, the body is the bomb. */
const imageBomb = gzipBomb(256 * MB)

const site = await startFixtureSite({
  '/huge.html': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' }); res.end(hugeDocument) },
  '/bomb.gif': (_req, res) => { res.writeHead(200, { 'content-type': 'image/gif', 'content-encoding': 'gzip' }); res.end(imageBomb) },
})
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`] })
t.teardown(async () => { await svc.close(); await site.close() })
const { key } = await svc.createOrg('enterprise')
const jobs = jobClient(svc, key)

for (const tier of ['standard', 'stealth'] as const) {
  t.test(`${tier}: an oversized rendered document or response body fails response_too_large; memory stays bounded`, async (t) => {
    const rssBefore = process.memoryUsage.rss()
    let rssPeak = rssBefore
    const sampler = setInterval(() => { rssPeak = Math.max(rssPeak, process.memoryUsage.rss()) }, 10)
    try {
      const huge = await jobs.run({ job_type: tier, target_url: `${site.origin}/huge.html`, artifact_options: { include_text: true, include_links: true } })
      t.equal(huge.status, 'failed')
      t.equal(huge.failure_reason, 'response_too_large')
      t.match(huge.failure_message, /rendered document/)
      t.same(huge.artifacts, [], 'nothing of the page was stored')

      const body = await jobs.run({ job_type: tier, target_url: `${site.origin}/bomb.gif`, artifact_options: { include_response_body: true } })
      t.equal(body.status, 'failed')
      t.equal(body.failure_reason, 'response_too_large')
      t.match(body.failure_message, /response body/)

      const withoutBody = await jobs.run({ job_type: tier, target_url: `${site.origin}/bomb.gif` })
      t.equal(withoutBody.status, 'succeeded', 'the body is not copied when not asked for')
    } finally {
      clearInterval(sampler)
    }
    const growthMb = (rssPeak - rssBefore) / MB
    t.comment(`${tier}: RSS before ${(rssBefore / MB).toFixed(0)} MB, peak ${(rssPeak / MB).toFixed(0)} MB`)
    t.ok(growthMb < 300, `the service's RSS grew ${growthMb.toFixed(0)} MB (< 300 MB)`)
  })
}
