import t from 'tap'
import { isAdOrTracker } from '../../fetchers/browser/ad-blocklist.js'
import { detectBlock } from '../../fetchers/browser/challenge.js'
import { HarRecorder } from '../../fetchers/browser/har.js'
import { requestFilter } from '../../fetchers/browser/request-filter.js'
import { fingerprintFor } from '../../fetchers/stealth/fingerprint.js'
import { CHALLENGE_PAGE } from '../fixtures/browser-site.js'

// The browser tiers' pure rules: ad blocklist, request filter, challenge detection, fingerprints, HAR shape.

const options = (over: Record<string, boolean> = {}) => ({
  include_html: true, include_response_body: false, include_extraction: false, include_screenshot: false, include_har: false,
  include_reader: false, include_links: false, include_text: false, include_page_metadata: false, include_console: false,
  block_images: false, block_styles: false, block_media: false, block_fonts: false, no_scroll: false, ...over,
})

t.test('the built-in ublock list matches ad and tracker hosts (and subdomains) and ad URL patterns', async (t) => {
  for (const url of ['https://securepubads.g.doubleclick.net/tag/js/gpt.js', 'https://www.googletagmanager.com/gtm.js?id=GTM-1',
    'https://static.hotjar.com/c/hotjar-1.js', 'https://example.com/ads/banner.js', 'https://cdn.example.com/js/analytics.js']) {
    t.ok(isAdOrTracker(url), url)
  }
  for (const url of ['https://example.com/', 'https://notdoubleclick.net/x.js', 'https://example.com/downloads/file.zip', 'data:text/plain,ads']) {
    t.notOk(isAdOrTracker(url), url)
  }
})

t.test('the request filter blocks resource types and ads, never the main document, and is absent when unused', async (t) => {
  t.equal(requestFilter(options(), false), undefined, 'no interception when nothing is blocked')
  const filter = requestFilter(options({ block_images: true, block_fonts: true }), true)!
  t.ok(filter({ url: 'https://example.com/a.png', resourceType: 'image', isMainFrameNavigation: false }))
  t.ok(filter({ url: 'https://example.com/f.woff2', resourceType: 'font', isMainFrameNavigation: false }))
  t.notOk(filter({ url: 'https://example.com/s.css', resourceType: 'stylesheet', isMainFrameNavigation: false }))
  t.ok(filter({ url: 'https://www.google-analytics.com/analytics.js', resourceType: 'script', isMainFrameNavigation: false }))
  t.notOk(filter({ url: 'https://example.com/ads/', resourceType: 'document', isMainFrameNavigation: true }), 'the page itself is never blocked')
})

t.test('challenge and denial detection', async (t) => {
  t.match(detectBlock(403, CHALLENGE_PAGE, {}), { reason: /cloudflare_challenge/ })
  t.match(detectBlock(200, '<html><script>window._cf_chl_opt={}</script></html>', {}), { reason: /cloudflare_challenge/ }, 'challenges served with 200')
  t.match(detectBlock(200, '<html></html>', { 'cf-mitigated': 'challenge' }), { reason: /cf_mitigated_header/ })
  t.match(detectBlock(429, '<html>slow down</html>', {}), { reason: /HTTP 429/ })
  t.match(detectBlock(403, '<html>Forbidden</html>', {}), { reason: /HTTP 403/ })
  t.equal(detectBlock(503, '<html>maintenance</html>', {}), null, 'plain overload is not a block')
  t.match(detectBlock(503, '<html><title>Just a moment...</title></html>', {}), { reason: /HTTP 503/ })
  const contactForm = '<html><title>Contact</title><iframe src="https://www.google.com/recaptcha/api2/anchor"></iframe></html>'
  t.equal(detectBlock(200, contactForm, {}), null, 'a captcha on an ordinary page is not a block')
  t.match(detectBlock(403, contactForm, {}), { reason: /captcha_iframe/ })
})

t.test('fingerprints agree with their OS and the real browser version', async (t) => {
  const windows = fingerprintFor('windows', '156.0.8078.79')
  t.equal(windows.userAgent, 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36')
  t.equal(windows.platform, 'Win32')
  t.equal(windows.metadata.platform, 'Windows')
  t.equal(windows.metadata.fullVersion, '156.0.8078.79')
  t.same(windows.metadata.brands.slice(0, 2).map((b) => b.version), ['156', '156'])
  t.equal(fingerprintFor('macos', '156.0.8078.79').platform, 'MacIntel')
  t.equal(fingerprintFor('linux', '156.0.8078.79').metadata.platform, 'Linux')
  t.same(fingerprintFor('linux', '156.0.8078.79'), fingerprintFor('linux', '156.0.8078.79'), 'deterministic: one identity per OS and version')
})

t.test('HAR entries carry timings and sizes, never bodies', async (t) => {
  const har = new HarRecorder()
  har.record({ kind: 'request', id: '1', time: 1000, url: 'https://example.com/?q=1', method: 'GET', headers: { accept: '*/*' }, resourceType: 'document', postDataSize: 0 })
  har.record({ kind: 'response', id: '1', time: 1100, status: 200, statusText: 'OK', headers: { 'content-type': 'text/html' } })
  har.record({ kind: 'finished', id: '1', time: 1150 })
  har.record({ kind: 'request', id: '2', time: 1200, url: 'https://example.com/x.png', method: 'GET', headers: {}, resourceType: 'image', postDataSize: 0 })
  har.record({ kind: 'failed', id: '2', time: 1210, errorText: 'net::ERR_BLOCKED_BY_CLIENT' })
  const log = (har.toHar({ title: 'T', startedAt: 1000, onLoadMs: 150 }, { name: 'chromium', version: '156' }) as any).log
  t.equal(log.version, '1.2')
  t.match(log.entries[0], { request: { queryString: [{ name: 'q', value: '1' }] }, response: { status: 200, content: { mimeType: 'text/html' } }, timings: { wait: 100, receive: 50 } })
  t.notOk('text' in log.entries[0].response.content)
  t.match(log.entries[1], { response: { status: 0 }, _failureText: 'net::ERR_BLOCKED_BY_CLIENT' })
})
