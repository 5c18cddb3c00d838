import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { jobClient, startBrowserSite } from '../fixtures/browser-site.js'
import { startService } from '../helpers/service.js'

// The standard tier through the API: rendering, artifacts, actions, wait_until, options, blocking, egress.

const site = await startBrowserSite()
// A server that is NOT allowlisted: nothing the browser does may reach it.
const outsider: string[] = []
const other = createServer((req, res) => { outsider.push(req.url ?? ''); res.end('leak') })
await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
const otherPort = (other.address() as AddressInfo).port
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`] })
t.teardown(async () => { await svc.close(); await site.close(); other.closeAllConnections(); other.close() })
const { key } = await svc.createOrg('pro')
const jobs = jobClient(svc, key)
const standard = (body: Record<string, unknown>) => jobs.run({ job_type: 'standard', ...body })
const requestsSince = (mark: number) => site.requests.slice(mark).map((r) => r.url)

t.test('renders JavaScript and builds every browser artifact from the rendered DOM', async (t) => {
  const job = await standard({
    target_url: `${site.origin}/app.html`,
    artifact_options: {
      include_screenshot: true, include_har: true, include_reader: true, include_links: true, include_text: true,
      include_page_metadata: true, include_console: true, include_response_body: true,
    },
    extraction: { hooks: [{ hook_id: 'rendered', type: 'css', selector: '#rendered' }, { hook_id: 'items', type: 'css', selector: '.items li', all_matches: true }] },
  })
  t.equal(job.status, 'succeeded', job.failure_message)
  t.same(new Set(job.artifacts.map((a: any) => a.artifact_type)),
    new Set(['html', 'response_body', 'json', 'screenshot', 'har', 'reader', 'links', 'text', 'page_metadata', 'console']))

  const m = job.manifest
  t.equal(m.http_status, 200)
  t.equal(m.response_headers['x-fixture'], 'app.html')
  t.equal(m.final_url, `${site.origin}/app.html`)
  t.same(m.egress, { mode: 'managed' })
  t.match(m.engine, { tier: 'standard', browser: 'chromium', browser_version: /^\d+\.\d+\.\d+\.\d+$/, headless: true })
  t.type(m.timing.navigation_ms, 'number')
  t.type(m.timing.duration_ms, 'number')

  const html = await jobs.artifactText(job, 'html')
  t.match(html, 'Rendered by JavaScript', 'html is the rendered DOM')
  t.match(await jobs.artifactText(job, 'response_body'), '<div id="app">loading…</div>', 'response_body is the raw document')
  t.notMatch(html, '<div id="app">loading…</div>')
  const extraction = await jobs.artifactJson(job, 'json')
  t.match(extraction.hooks, [{ hook_id: 'rendered', result: 'Rendered by JavaScript' }, { hook_id: 'items', result: ['Alpha', 'Beta'] }], 'hooks run on the rendered DOM')

  const png = await jobs.artifactBytes(job, 'screenshot')
  t.same([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'screenshot is a PNG')
  t.equal(job.artifacts.find((a: any) => a.artifact_type === 'screenshot').content_type, 'image/png')

  const har = await jobs.artifactJson(job, 'har')
  t.equal(har.log.version, '1.2')
  const document = har.log.entries.find((e: any) => e.request.url === `${site.origin}/app.html`)
  t.equal(document?.response.status, 200)
  t.ok(har.log.entries.some((e: any) => e.request.url.endsWith('/lazy-data')), 'the trace holds requests made after load')
  t.notOk(har.log.entries.some((e: any) => 'text' in e.response.content), 'no response bodies in the HAR')

  const reader = await jobs.artifactText(job, 'reader')
  t.match(reader, /^# Fixture headline/)
  t.match(reader, `[the guide](${site.origin}/docs/guide)`)
  t.notMatch(reader, 'About', 'navigation is not part of the article')

  t.same(await jobs.artifactJson(job, 'links'), [`${site.origin}/about`, 'https://example.org/elsewhere', `${site.origin}/app.html#top`, `${site.origin}/docs/guide`])
  const text = await jobs.artifactText(job, 'text')
  t.match(text, 'Rendered by JavaScript')
  t.notMatch(text, 'IntersectionObserver', 'scripts are not visible text')

  t.match(await jobs.artifactJson(job, 'page_metadata'), {
    title: 'Fixture app', description: 'A JavaScript-rendered fixture page', canonical: `${site.origin}/app.html?canonical=1`,
    open_graph: { title: 'Fixture OG title', type: 'article', image: ['https://cdn.example.com/og-1.png', 'https://cdn.example.com/og-2.png'] },
    twitter: { card: 'summary_large_image', site: '@fixture' },
    json_ld: [{ '@type': 'Article', headline: 'Fixture headline' }], json_ld_errors: 1,
  })
  t.match(await jobs.artifactJson(job, 'console'), [
    { type: 'log', text: 'fixture says hello 42' }, { type: 'warning', text: 'fixture warning' }, { type: 'error', text: 'fixture error' },
  ])
})

t.test('the reader artifact is empty for a page without an article', async (t) => {
  const job = await standard({ target_url: `${site.origin}/form.html`, artifact_options: { include_reader: true, no_scroll: true } })
  t.equal(job.status, 'succeeded')
  t.equal(await jobs.artifactText(job, 'reader'), '')
})

t.test('lazy content loads through the default auto-scroll; no_scroll leaves it out', async (t) => {
  const scrolled = await standard({ target_url: `${site.origin}/app.html` })
  t.match(await jobs.artifactText(scrolled, 'html'), 'id="lazy-loaded"')
  t.ok(scrolled.manifest.auto_scroll.steps > 1)
  const still = await standard({ target_url: `${site.origin}/app.html`, artifact_options: { no_scroll: true } })
  t.notMatch(await jobs.artifactText(still, 'html'), 'Lazy content loaded')
  t.notOk('auto_scroll' in still.manifest)
})

t.test('actions fill, click, scroll and wait run in order after load', async (t) => {
  const job = await standard({
    target_url: `${site.origin}/form.html`,
    actions: [{ type: 'scroll', direction: 'down' }, { type: 'fill', selector: '#name', value: 'Ada' }, { type: 'wait', timeout_ms: 50 }, { type: 'click', selector: '#send' }],
  })
  t.equal(job.status, 'succeeded', job.failure_message)
  t.equal(job.manifest.actions_run, 4)
  t.equal(job.manifest.final_url, `${site.origin}/form-result?name=Ada`, 'the click submitted the filled form')
  t.match(await jobs.artifactText(job, 'html'), '<p id="greeting">Hello Ada</p>')
})

t.test('a failing action fails the job with action_failed and names its index', async (t) => {
  const job = await standard({
    target_url: `${site.origin}/form.html`, artifact_options: { no_scroll: true },
    actions: [{ type: 'click', selector: '#reveal' }, { type: 'wait', timeout_ms: 10 }, { type: 'click', selector: '#missing' }],
  })
  t.equal(job.status, 'failed')
  t.equal(job.failure_reason, 'action_failed')
  t.match(job.failure_message, /^actions\[2\] \(click '#missing'\) failed: /)
})

t.test('wait_until: load waits for subresources, domcontentloaded and commit do not, networkidle waits for late requests', async (t) => {
  const at = async (wait_until: string) => standard({ target_url: `${site.origin}/late.html`, wait_until, artifact_options: { no_scroll: true } })
  const [load, dom, commit, idle] = [await at('load'), await at('domcontentloaded'), await at('commit'), await at('networkidle')]
  for (const job of [load, dom, commit, idle]) t.equal(job.status, 'succeeded', job.failure_message)
  t.ok(load.manifest.timing.navigation_ms >= 1400, `load waited for the slow image (${load.manifest.timing.navigation_ms} ms)`)
  t.ok(dom.manifest.timing.navigation_ms < 1400, `domcontentloaded did not (${dom.manifest.timing.navigation_ms} ms)`)
  t.ok(commit.manifest.timing.navigation_ms < 1400, `commit did not (${commit.manifest.timing.navigation_ms} ms)`)
  t.equal(idle.manifest.wait_until, 'networkidle')
  t.match(await jobs.artifactText(idle, 'html'), '<p id="after-load">idle-marker</p>', 'networkidle waited for the request made after load')
  t.match(await jobs.artifactText(load, 'html'), '<p id="after-load"></p>')
})

t.test('a page that never finishes loading fails with navigation_timeout; a shorter timeout_ms with timeout', async (t) => {
  const never = await standard({ target_url: `${site.origin}/never`, navigation_timeout_ms: 1500 })
  t.equal(never.status, 'failed')
  t.equal(never.failure_reason, 'navigation_timeout')
  t.match(never.failure_message, /'load' within navigation_timeout_ms \(1500 ms\)/)
  const committed = await standard({ target_url: `${site.origin}/never`, navigation_timeout_ms: 1500, wait_until: 'commit', artifact_options: { no_scroll: true } })
  t.equal(committed.status, 'succeeded', 'commit does not wait for the document to finish')
  t.match(await jobs.artifactText(committed, 'html'), 'Still loading')
  const job = await standard({ target_url: `${site.origin}/never`, timeout_ms: 1500, navigation_timeout_ms: 10_000 })
  t.equal(job.failure_reason, 'timeout')
})

t.test('viewport, locale, timezone_id, user_agent and headers reach the page', async (t) => {
  const mark = site.requests.length
  const job = await standard({
    target_url: `${site.origin}/probe`, viewport: { width: 900, height: 700 }, locale: 'de-DE', timezone_id: 'Asia/Tokyo',
    user_agent: 'ScrapeworksTest/2.0', headers: { 'x-custom': 'yes' }, artifact_options: { no_scroll: true },
  })
  t.equal(job.status, 'succeeded', job.failure_message)
  const html = await jobs.artifactText(job, 'html')
  const probe = JSON.parse(/<pre id="probe">([^<]*)<\/pre>/.exec(html)![1]!.replace(/&quot;/g, '"').replace(/&amp;/g, '&'))
  t.match(probe, { width: 900, height: 700, language: 'de-DE', timezone: 'Asia/Tokyo', userAgent: 'ScrapeworksTest/2.0' })
  const seen = site.requests.slice(mark).find((r) => r.url === '/probe')!
  t.equal(seen.headers['x-custom'], 'yes')
  t.equal(seen.headers['user-agent'], 'ScrapeworksTest/2.0')
  t.match(seen.headers['accept-language'], /^de-DE/)

  const before = site.requests.length
  await standard({ target_url: `${site.origin}/app.html`, headers: { 'x-custom': 'nav-only' }, artifact_options: { no_scroll: true } })
  const after = site.requests.slice(before)
  t.equal(after.find((r) => r.url === '/app.html')?.headers['x-custom'], 'nav-only')
  t.notOk(after.find((r) => r.url === '/static/site.css')?.headers['x-custom'], 'headers are for the navigation only')
})

t.test('block_* options stop images, styles, media and fonts in the browser', async (t) => {
  let mark = site.requests.length
  const media = await standard({ target_url: `${site.origin}/app.html`, artifact_options: { block_images: true, block_media: true, block_fonts: true, no_scroll: true } })
  t.equal(media.status, 'succeeded')
  let urls = requestsSince(mark)
  t.ok(urls.includes('/static/site.css'), 'styles still load')
  for (const blocked of ['/static/pixel.png', '/static/clip.mp3', '/static/font.woff2']) t.notOk(urls.includes(blocked), `${blocked} was blocked`)
  t.ok(media.manifest.blocked_requests >= 3)

  mark = site.requests.length
  const styles = await standard({ target_url: `${site.origin}/app.html`, artifact_options: { block_stylesheets: true, no_scroll: true } })
  urls = requestsSince(mark)
  t.notOk(urls.includes('/static/site.css'), 'block_stylesheets (alias of block_styles) blocks CSS')
  t.ok(urls.includes('/static/pixel.png'), 'images still load')
  t.equal(styles.status, 'succeeded')
})

t.test('every request the page makes goes through the egress gateway and its SSRF policy', async (t) => {
  const job = await standard({ target_url: `${site.origin}/leaky?port=${otherPort}`, artifact_options: { include_har: true } })
  t.equal(job.status, 'succeeded', job.failure_message)
  await new Promise((r) => setTimeout(r, 300))
  t.same(outsider, [], 'stylesheet, image, fetch, websocket and localhost requests to a non-allowlisted port never arrived')
  const har = await jobs.artifactJson(job, 'har')
  const leaks = har.log.entries.filter((e: any) => e.request.url.includes(`:${otherPort}/`))
  t.ok(leaks.length >= 2, 'the browser attempted them')
  t.ok(leaks.every((e: any) => e.response.status === 0 || e.response.status === 403), 'and each was refused')
})

t.test('a target outside the allowlist is refused before any browser work', async (t) => {
  const answer = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'standard', target_url: `http://127.0.0.1:${otherPort}/` } })
  t.equal(answer.status, 422)
})
