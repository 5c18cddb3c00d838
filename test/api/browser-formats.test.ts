import t from 'tap'
import { jobClient, startBrowserSite } from '../fixtures/browser-site.js'
import { startService } from '../helpers/service.js'

// `formats` on the standard tier: the page views of the rendered DOM, screenshots (viewport, full page) and PDF.

const site = await startBrowserSite()
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`] })
t.teardown(async () => { await svc.close(); await site.close() })
const { key } = await svc.createOrg('pro')
const jobs = jobClient(svc, key)
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
/** A PNG's height in pixels (its IHDR chunk). */
const pngHeight = (png: Buffer) => png.readUInt32BE(20)

t.test('standard makes every format from the rendered page', async (t) => {
  const job = await jobs.run({
    job_type: 'standard', target_url: `${site.origin}/app.html`,
    formats: ['markdown', 'html', 'rawHtml', 'text', 'links', 'metadata', 'screenshot', 'pdf'],
  })
  t.equal(job.status, 'succeeded', job.failure_message)
  const f = job.formats
  t.match(f.markdown, /^# Fixture headline/)
  t.match(f.html, 'Rendered by JavaScript', 'html is the rendered DOM')
  t.match(f.rawHtml, '<div id="app">loading…</div>', 'rawHtml is the document as received')
  t.match(f.text, 'Rendered by JavaScript', 'text is what the browser rendered')
  t.same(f.links, [`${site.origin}/about`, 'https://example.org/elsewhere', `${site.origin}/app.html#top`, `${site.origin}/docs/guide`])
  t.match(f.metadata, { title: 'Fixture app', json_ld: [{ '@type': 'Article' }] })
  t.match(f.screenshot, { artifact_type: 'screenshot', content_type: 'image/png', url: /^http/, expires_at: String })
  t.match(f.pdf, { artifact_type: 'pdf', content_type: 'application/pdf', url: /^http/ })
  t.same(job.formats_truncated, {})

  const pdf = Buffer.from(await (await fetch(f.pdf.url)).arrayBuffer())
  t.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-', 'the pdf artifact is a PDF')
  t.equal(pdf.byteLength, f.pdf.size)
  const png = Buffer.from(await (await fetch(f.screenshot.url)).arrayBuffer())
  t.same([...png.subarray(0, 8)], PNG)
  t.ok(pngHeight(png) < 1500, `a viewport screenshot (${pngHeight(png)} px high)`)
})

t.test('screenshot@fullPage holds the whole page', async (t) => {
  const job = await jobs.run({ job_type: 'standard', target_url: `${site.origin}/app.html`, formats: ['screenshot@fullPage'], artifact_options: { no_scroll: true } })
  t.equal(job.status, 'succeeded', job.failure_message)
  const png = Buffer.from(await (await fetch(job.formats['screenshot@fullPage'].url)).arrayBuffer())
  t.same([...png.subarray(0, 8)], PNG)
  // The fixture's spacer alone is 3000 px high.
  t.ok(pngHeight(png) > 3000, `the whole page (${pngHeight(png)} px high)`)
  t.same(job.artifacts.map((a: any) => a.artifact_type).sort(), ['html', 'screenshot'])
})
