import t from 'tap'
import { startService } from '../helpers/service.js'

// Every 422 code of the browser options, through the API. Invalid jobs are never created; this service has no
// fetcher role, so the valid ones at the end stay queued and no browser starts.

const svc = await startService({ allowlist: ['127.0.0.1:9'], roles: ['api', 'projector'] })
t.teardown(() => svc.close())
const { key } = await svc.createOrg('pro')
const standard = { job_type: 'standard', target_url: 'https://example.com/' }
const stealth = { job_type: 'stealth', target_url: 'https://example.com/' }
const light = { job_type: 'light', target_url: 'https://example.com/' }
const proxy = { server: 'http://proxy.example.com:8080' }

const codesOf = (body: any): string[] => (body?.error?.details ?? []).map((d: any) => d.code)

const cases: [string, Record<string, unknown>, string][] = [
  // Browser options
  ['headless not boolean', { ...standard, headless: 'yes' }, 'invalid_headless'],
  ['browser other than the tier sets', { ...standard, browser: 'firefox' }, 'invalid_browser'],
  ['stealth browser on standard', { ...standard, browser: 'stealth' }, 'invalid_browser'],
  ['wait_until unknown', { ...standard, wait_until: 'networkidle2' }, 'invalid_wait_until'],
  ['wait_until not a string', { ...stealth, wait_until: 1 }, 'invalid_wait_until'],
  ['navigation_timeout_ms too small', { ...standard, navigation_timeout_ms: 999 }, 'invalid_navigation_timeout_ms'],
  ['navigation_timeout_ms too large', { ...standard, navigation_timeout_ms: 300_001 }, 'invalid_navigation_timeout_ms'],
  ['viewport not an object', { ...standard, viewport: '800x600' }, 'invalid_viewport'],
  ['viewport width too small', { ...standard, viewport: { width: 319, height: 600 } }, 'invalid_viewport_width'],
  ['viewport width too large', { ...standard, viewport: { width: 7681, height: 600 } }, 'invalid_viewport_width'],
  ['viewport width missing', { ...standard, viewport: { height: 600 } }, 'invalid_viewport_width'],
  ['viewport height too small', { ...standard, viewport: { width: 800, height: 239 } }, 'invalid_viewport_height'],
  ['viewport height too large', { ...standard, viewport: { width: 800, height: 4321 } }, 'invalid_viewport_height'],
  ['locale not BCP-47', { ...standard, locale: 'english please' }, 'invalid_locale'],
  ['timezone_id not IANA', { ...standard, timezone_id: 'Mars/Olympus_Mons' }, 'invalid_timezone_id'],
  ['headers with a newline', { ...standard, headers: { 'x-a': 'b\r\nx-injected: 1' } }, 'invalid_header_value'],
  ['user_agent not a string', { ...standard, user_agent: 42 }, 'invalid_user_agent'],
  // Standard-only options on stealth: rejected, never dropped
  ['viewport on stealth', { ...stealth, viewport: { width: 800, height: 600 } }, 'invalid_viewport_tier'],
  ['locale on stealth', { ...stealth, locale: 'en-US' }, 'invalid_locale_tier'],
  ['timezone_id on stealth', { ...stealth, timezone_id: 'Europe/Paris' }, 'invalid_timezone_id_tier'],
  ['user_agent on stealth', { ...stealth, user_agent: 'Custom/1.0' }, 'invalid_user_agent_tier'],
  // Stealth-only options elsewhere
  ['proxy on standard', { ...standard, proxy }, 'invalid_proxy_tier'],
  ['proxy on light', { ...light, proxy }, 'invalid_proxy_tier'],
  ['os_name on standard', { ...standard, os_name: 'windows' }, 'invalid_os_name_tier'],
  ['browser_extensions on standard', { ...standard, browser_extensions: ['ublock'] }, 'invalid_browser_extensions_tier'],
  // Browser options on light
  ['wait_until on light', { ...light, wait_until: 'load' }, 'invalid_wait_until_tier'],
  ['headless on light', { ...light, headless: true }, 'invalid_headless_tier'],
  ['navigation_timeout_ms on light', { ...light, navigation_timeout_ms: 5000 }, 'invalid_navigation_timeout_ms_tier'],
  ['actions on light', { ...light, actions: [{ type: 'wait', timeout_ms: 10 }] }, 'invalid_actions_tier'],
  ['screenshot on light', { ...light, artifact_options: { include_screenshot: true } }, 'invalid_include_screenshot_tier'],
  ['har on light', { ...light, artifact_options: { include_har: true } }, 'invalid_include_har_tier'],
  ['block_images on light', { ...light, artifact_options: { block_images: true } }, 'invalid_block_images_tier'],
  ['no_scroll on light', { ...light, artifact_options: { no_scroll: true } }, 'invalid_no_scroll_tier'],
  // Light-only options on browser tiers
  ['method on standard', { ...standard, method: 'POST' }, 'invalid_method_tier'],
  ['retry_policy on stealth', { ...stealth, retry_policy: { max_attempts: 2 } }, 'invalid_retry_policy_tier'],
  ['follow_redirects on standard', { ...standard, follow_redirects: false }, 'invalid_follow_redirects_tier'],
  // Stealth options
  ['os_name unknown', { ...stealth, os_name: 'android' }, 'invalid_os_name'],
  ['browser_extensions unknown slug', { ...stealth, browser_extensions: ['adblock-plus'] }, 'invalid_browser_extensions'],
  ['browser_extensions not a list', { ...stealth, browser_extensions: 'ublock' }, 'invalid_browser_extensions'],
  ['proxy not an object', { ...stealth, proxy: 'http://proxy.example.com:8080' }, 'invalid_proxy'],
  ['proxy without server', { ...stealth, proxy: { username: 'u' } }, 'invalid_proxy_server'],
  ['proxy server without a port', { ...stealth, proxy: { server: 'http://proxy.example.com' } }, 'invalid_proxy_server'],
  ['proxy server with another scheme', { ...stealth, proxy: { server: 'socks5://proxy.example.com:1080' } }, 'invalid_proxy_server'],
  ['proxy server on a private address', { ...stealth, proxy: { server: 'http://10.0.0.5:3128' } }, 'unsafe_proxy_server'],
  ['proxy server on loopback', { ...stealth, proxy: { server: 'http://127.0.0.1:3128' } }, 'unsafe_proxy_server'],
  ['proxy username not a string', { ...stealth, proxy: { ...proxy, username: 1 } }, 'invalid_proxy_username'],
  ['proxy password not a string', { ...stealth, proxy: { ...proxy, password: true } }, 'invalid_proxy_password'],
  ['proxy bypass not a string', { ...stealth, proxy: { ...proxy, bypass: ['*.example.com'] } }, 'invalid_proxy_bypass'],
  ['proxy unknown field', { ...stealth, proxy: { ...proxy, type: 'socks' } }, 'unknown_field'],
  // Actions
  ['actions not a list', { ...standard, actions: { type: 'click' } }, 'invalid_actions'],
  ['more than 50 actions', { ...standard, actions: Array.from({ length: 51 }, () => ({ type: 'wait', timeout_ms: 1 })) }, 'invalid_actions'],
  ['action not an object', { ...standard, actions: ['click'] }, 'invalid_action'],
  ['action type unknown', { ...standard, actions: [{ type: 'hover', selector: 'a' }] }, 'invalid_action_type'],
  ['click without selector', { ...standard, actions: [{ type: 'click' }] }, 'invalid_action_selector'],
  ['click with a blank selector', { ...stealth, actions: [{ type: 'click', selector: '  ' }] }, 'invalid_action_selector'],
  ['fill without value', { ...standard, actions: [{ type: 'fill', selector: '#q' }] }, 'invalid_action_value'],
  ['fill with a number value', { ...standard, actions: [{ type: 'fill', selector: '#q', value: 3 }] }, 'invalid_action_value'],
  ['scroll up', { ...standard, actions: [{ type: 'scroll', direction: 'up' }] }, 'invalid_scroll_direction'],
  ['wait without timeout_ms', { ...standard, actions: [{ type: 'wait' }] }, 'invalid_action_timeout_ms'],
  ['wait too long', { ...standard, actions: [{ type: 'wait', timeout_ms: 60_001 }] }, 'invalid_action_timeout_ms'],
  // Artifact options on browser tiers
  ['block option not boolean', { ...standard, artifact_options: { block_images: 'yes' } }, 'invalid_block_images'],
  ['screenshot option not boolean', { ...stealth, artifact_options: { include_screenshot: 1 } }, 'invalid_include_screenshot'],
  ['unknown artifact option', { ...standard, artifact_options: { include_video: true } }, 'unknown_field'],
]

for (const [name, body, code] of cases) {
  t.test(name, async (t) => {
    const answer = await svc.api('POST', '/v1/jobs', { key, body })
    t.equal(answer.status, 422, JSON.stringify(answer.body))
    t.ok(codesOf(answer.body).includes(code), `expected ${code} in ${codesOf(answer.body).join(', ')}`)
  })
}

t.test('the action error names the index of the failing action', async (t) => {
  const answer = await svc.api('POST', '/v1/jobs', { key, body: { ...standard, actions: [{ type: 'wait', timeout_ms: 1 }, { type: 'click' }] } })
  t.match(answer.body.error.details, [{ field: 'actions[1].selector', code: 'invalid_action_selector' }])
})

t.test('valid browser options are accepted on their tiers', async (t) => {
  const okStandard = await svc.api('POST', '/v1/jobs', { key, body: {
    ...standard, headless: false, browser: 'chromium', wait_until: 'networkidle', navigation_timeout_ms: 5000, viewport: { width: 320, height: 240 },
    locale: 'en-GB', timezone_id: 'Europe/Paris', user_agent: 'X/1', headers: { 'x-a': 'b' },
    actions: [{ type: 'click', selector: 'a' }, { type: 'fill', selector: 'input', value: '' }, { type: 'scroll', direction: 'down' }, { type: 'wait', timeout_ms: 0 }],
    artifact_options: { include_screenshot: true, include_har: true, block_stylesheets: true, no_scroll: true },
  } })
  t.equal(okStandard.status, 202, okStandard.text)
  const okStealth = await svc.api('POST', '/v1/jobs', { key, body: {
    ...stealth, os_name: 'macos', browser_extensions: ['ublock', 'isdcac'], browser: 'stealth', proxy: { ...proxy, username: 'u', password: 'p', bypass: '*.example.com' },
  } })
  t.equal(okStealth.status, 202, okStealth.text)
})
