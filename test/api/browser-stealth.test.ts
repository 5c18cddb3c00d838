import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { jobClient, startBrowserSite, startRecordingProxy } from '../fixtures/browser-site.js'
import { startService } from '../helpers/service.js'

// The stealth tier through the API: fingerprints, Xvfb, ublock, isdcac, blocks and challenges, customer proxies.

const PROXY_USER = 'customer-7'
const PROXY_PASSWORD = 'proxy-pw-5b1e77-unique'

const site = await startBrowserSite()
const proxy = await startRecordingProxy({ username: PROXY_USER, password: PROXY_PASSWORD })
const svc = await startService({
  allowlist: [`127.0.0.1:${site.port}`, `127.0.0.1:${proxy.port}`],
  // The fixture challenge never clears: do not wait the production 5 s for it.
  env: { STEALTH_CHALLENGE_WAIT_MS: '500' },
})
t.teardown(async () => { await svc.close(); await site.close(); await proxy.close() })
const { key } = await svc.createOrg('pro')
const jobs = jobClient(svc, key)
const stealth = (body: Record<string, unknown>) => jobs.run({ job_type: 'stealth', ...body })

const decode = (s: string) => s.replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>')
const probeOf = (html: string) => ({
  page: JSON.parse(decode(/<pre id="probe">([^<]*)<\/pre>/.exec(html)![1]!)),
  headers: JSON.parse(/<script id="request-headers" type="application\/json">([^<]*)<\/script>/.exec(html)![1]!),
})

const filesUnder = (dir: string): string[] => readdirSync(dir, { withFileTypes: true })
  .flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]))

t.test('each os_name gives one consistent fingerprint: User-Agent, navigator.platform and client hints agree', async (t) => {
  const expected = {
    windows: { ua: 'Windows NT 10.0; Win64; x64', platform: 'Win32', hint: 'Windows' },
    macos: { ua: 'Macintosh; Intel Mac OS X', platform: 'MacIntel', hint: 'macOS' },
    linux: { ua: 'X11; Linux x86_64', platform: 'Linux x86_64', hint: 'Linux' },
  } as const
  for (const [os, want] of Object.entries(expected)) {
    const job = await stealth({ target_url: `${site.origin}/probe`, os_name: os, artifact_options: { no_scroll: true } })
    t.equal(job.status, 'succeeded', job.failure_message)
    t.match(job.manifest.engine, { tier: 'stealth', os_name: os, browser_version: /^\d+\./ })
    const { page, headers } = probeOf(await jobs.artifactText(job, 'html'))
    const major = job.manifest.engine.browser_version.split('.')[0]
    t.match(page.userAgent, want.ua, `${os}: navigator.userAgent`)
    t.match(page.userAgent, `Chrome/${major}.0.0.0`, `${os}: the real major version`)
    t.notMatch(page.userAgent, 'Headless', `${os}: no HeadlessChrome`)
    t.equal(page.platform, want.platform, `${os}: navigator.platform`)
    t.equal(page.hints.platform, want.hint, `${os}: userAgentData platform`)
    t.ok(page.brands.includes('Google Chrome'), `${os}: brands`)
    t.equal(page.webdriver, false, `${os}: navigator.webdriver`)
    t.equal(headers['user-agent'], page.userAgent, `${os}: the header matches the page`)
    t.equal(headers['sec-ch-ua-platform'], `"${want.hint}"`, `${os}: the client hint header matches`)
  }
  // Three OS profiles, three browser processes: a fingerprint belongs to a process, never mixed inside one.
  const second = await stealth({ target_url: `${site.origin}/probe`, os_name: 'macos', artifact_options: { no_scroll: true } })
  t.match(probeOf(await jobs.artifactText(second, 'html')).page.platform, 'MacIntel', 'the same OS again gets the same identity')
})

t.test('headless: false runs a headed browser on a virtual display', async (t) => {
  const mark = site.requests.length
  const job = await stealth({
    target_url: `${site.origin}/app.html`, headless: false, headers: { 'x-trace': 'stealth-nav' },
    artifact_options: { include_screenshot: true, include_console: true },
  })
  t.equal(job.status, 'succeeded', job.failure_message)
  t.equal(job.manifest.engine.headless, false)
  const seen = site.requests.slice(mark)
  t.equal(seen.find((r) => r.url === '/app.html')?.headers['x-trace'], 'stealth-nav', 'headers go with the navigation')
  t.notOk(seen.find((r) => r.url === '/static/site.css')?.headers['x-trace'], 'and only with it')
  t.match(await jobs.artifactText(job, 'html'), 'Lazy content loaded', 'rendered and auto-scrolled')
  t.match(await jobs.artifactJson(job, 'console'), [{ type: 'log', text: 'fixture says hello 42' }], 'console capture on stealth')
  const png = await jobs.artifactBytes(job, 'screenshot')
  t.equal(png.subarray(1, 4).toString('latin1'), 'PNG')
})

t.test('ublock (built-in list) blocks ad and tracker requests', async (t) => {
  const plain = await stealth({ target_url: `${site.origin}/ads.html`, artifact_options: { no_scroll: true } })
  const html = await jobs.artifactText(plain, 'html')
  t.match(html, 'id="ad-slot"', 'without ublock the ad loads')
  t.match(html, 'id="tracker"')
  const mark = site.requests.length
  const blocked = await stealth({ target_url: `${site.origin}/ads.html`, browser_extensions: ['ublock'], artifact_options: { no_scroll: true } })
  t.equal(blocked.status, 'succeeded')
  const clean = await jobs.artifactText(blocked, 'html')
  t.notMatch(clean, 'id="ad-slot"')
  t.notMatch(clean, 'id="tracker"')
  t.match(clean, 'The actual content.')
  const urls = site.requests.slice(mark).map((r) => r.url)
  t.notOk(urls.includes('/ads/banner.js') || urls.includes('/static/analytics.js'), 'the blocked scripts never left the browser')
  t.equal(blocked.manifest.blocked_requests, 2)
})

t.test('isdcac accepts consent banners, known platforms and generic ones', async (t) => {
  const without = await stealth({ target_url: `${site.origin}/consent.html` })
  const before = await jobs.artifactText(without, 'html')
  t.match(before, 'consent: none')
  t.match(before, 'id="onetrust-banner-sdk"')
  const job = await stealth({ target_url: `${site.origin}/consent.html`, browser_extensions: ['isdcac'] })
  t.equal(job.status, 'succeeded')
  const html = await jobs.artifactText(job, 'html')
  t.match(html, 'consent: onetrust,generic')
  t.notMatch(html, 'id="onetrust-banner-sdk"')
  t.notMatch(html, 'class="cookie-consent"')
  t.same(job.manifest.consent_clicked, ['#onetrust-accept-btn-handler', 'text:Accept all'])
})

t.test('a target that denies or challenges fails with stealth_blocked', async (t) => {
  const challenge = await stealth({ target_url: `${site.origin}/challenge`, artifact_options: { include_screenshot: true } })
  t.equal(challenge.status, 'failed')
  t.equal(challenge.failure_reason, 'stealth_blocked')
  t.match(challenge.failure_message, /challenge markers \(cloudflare_challenge.*\) with HTTP 403/)
  t.equal(challenge.manifest.http_status, 403)
  t.ok(challenge.artifacts.some((a: any) => a.artifact_type === 'screenshot'), 'the challenge page is kept for inspection')
  const denied = await stealth({ target_url: `${site.origin}/denied` })
  t.equal(denied.failure_reason, 'stealth_blocked')
  t.match(denied.failure_message, /HTTP 403/)
  const overloaded = await stealth({ target_url: `${site.origin}/overloaded` })
  t.equal(overloaded.failure_reason, 'upstream_error', 'a plain 503 is the target failing, not a block')
  const fine = await stealth({ target_url: `${site.origin}/page`, artifact_options: { no_scroll: true } })
  t.equal(fine.status, 'succeeded')
})

t.test('a customer proxy carries the requests and gets the credentials, which are never stored', async (t) => {
  const before = proxy.visits.length
  const job = await stealth({
    target_url: `${site.origin}/app.html`, artifact_options: { no_scroll: true },
    proxy: { server: proxy.server, username: PROXY_USER, password: PROXY_PASSWORD },
  })
  t.equal(job.status, 'succeeded', job.failure_message)
  t.same(job.manifest.egress, { mode: 'custom', proxy_host: `127.0.0.1:${proxy.port}` })
  const visits = proxy.visits.slice(before)
  const paths = visits.filter((v) => v.hostname === '127.0.0.1' && v.port === site.port)
  t.ok(paths.length >= 3, `document and subresources passed the customer proxy (${paths.length})`)
  t.ok(paths.every((v) => v.username === PROXY_USER && v.password === PROXY_PASSWORD), 'with the customer credentials')

  const record = await svc.api('GET', `/v1/jobs/${job.job_id}`, { key })
  t.notMatch(record.text, PROXY_PASSWORD)
  for (const file of filesUnder(svc.dataDir)) t.notOk(readFileSync(file).includes(PROXY_PASSWORD), `${file} does not hold the password`)

  const wrong = await stealth({
    target_url: `${site.origin}/page`, artifact_options: { no_scroll: true },
    proxy: { server: proxy.server, username: PROXY_USER, password: 'wrong' },
  })
  t.equal(wrong.status, 'failed')
  t.equal(wrong.failure_reason, 'proxy_error')
  t.notMatch(JSON.stringify(wrong), 'wrong"', 'the message does not echo the password')

  const mark = proxy.visits.length
  const bypassed = await stealth({
    target_url: `${site.origin}/page`, artifact_options: { no_scroll: true },
    proxy: { server: proxy.server, username: PROXY_USER, password: PROXY_PASSWORD, bypass: '127.0.0.1' },
  })
  t.equal(bypassed.status, 'succeeded', 'a bypassed host is reached without the customer proxy (still through the gateway)')
  t.equal(proxy.visits.length, mark)
})
