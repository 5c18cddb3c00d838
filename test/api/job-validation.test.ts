import t from 'tap'
import { startService } from '../helpers/service.js'

const svc = await startService({ allowlist: ['127.0.0.1:9'] })
t.teardown(() => svc.close())
const { key } = await svc.createOrg('pro')
const base = { job_type: 'light', target_url: 'https://example.com/' }

const codesOf = (body: any): string[] => (body?.error?.details ?? []).map((d: any) => d.code)

/** Each case: a body and the code it must produce (422 unless said otherwise), and no job is created. */
const cases: [string, Record<string, unknown>, string][] = [
  ['unknown job_type', { ...base, job_type: 'heavy' }, 'invalid_job_type'],
  ['relative target_url', { ...base, target_url: '/page' }, 'invalid_target_url'],
  ['ftp target_url', { ...base, target_url: 'ftp://example.com/' }, 'invalid_target_url'],
  ['loopback target', { ...base, target_url: 'http://127.0.0.1/' }, 'unsafe_target_url'],
  ['decimal loopback', { ...base, target_url: 'http://2130706433/' }, 'unsafe_target_url'],
  ['octal loopback', { ...base, target_url: 'http://0177.0.0.1/' }, 'unsafe_target_url'],
  ['hex loopback', { ...base, target_url: 'http://0x7f.0.0.1/' }, 'unsafe_target_url'],
  ['mapped ipv6 loopback', { ...base, target_url: 'http://[::ffff:127.0.0.1]/' }, 'unsafe_target_url'],
  ['private 10/8', { ...base, target_url: 'http://10.1.2.3/' }, 'unsafe_target_url'],
  ['metadata', { ...base, target_url: 'http://169.254.169.254/latest/meta-data/' }, 'unsafe_target_url'],
  ['cgnat', { ...base, target_url: 'http://100.64.0.1/' }, 'unsafe_target_url'],
  ['localhost', { ...base, target_url: 'http://localhost:8080/' }, 'unsafe_target_url'],
  ['credentials in url', { ...base, target_url: 'https://user:pw@example.com/' }, 'unsafe_target_url'],
  ['timeout too small', { ...base, timeout_ms: 999 }, 'invalid_timeout_ms'],
  ['timeout too large', { ...base, timeout_ms: 300001 }, 'invalid_timeout_ms'],
  ['timeout not integer', { ...base, timeout_ms: '30000' }, 'invalid_timeout_ms'],
  ['bad method', { ...base, method: 'TRACE' }, 'invalid_method'],
  ['max_redirects above 20', { ...base, max_redirects: 21 }, 'invalid_max_redirects'],
  ['max_redirects negative', { ...base, max_redirects: -1 }, 'invalid_max_redirects'],
  ['tags not a list', { ...base, tags: 'a' }, 'invalid_tags'],
  ['empty tag', { ...base, tags: [''] }, 'invalid_tags'],
  ['tag over 64 characters', { ...base, tags: ['t'.repeat(65)] }, 'invalid_tags'],
  ['more than 50 tags', { ...base, tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, 'invalid_tags'],
  ['tag with a control character', { ...base, tags: ['a\u0007b'] }, 'invalid_tags'],
  ['retry_policy max_attempts 0', { ...base, retry_policy: { max_attempts: 0 } }, 'invalid_retry_policy'],
  ['retry_policy bad status', { ...base, retry_policy: { retry_on_status: [99] } }, 'invalid_retry_policy'],
  ['retry_policy bad method', { ...base, retry_policy: { retry_methods: ['FETCH'] } }, 'invalid_retry_policy'],
  ['retry_policy unknown field', { ...base, retry_policy: { tries: 3 } }, 'unknown_field'],
  ['headers with newline', { ...base, headers: { 'x-a': 'b\r\nx-injected: 1' } }, 'invalid_header_value'],
  ['body on GET', { ...base, body: 'x' }, 'invalid_body'],
  ['follow_redirects not boolean', { ...base, follow_redirects: 'yes' }, 'invalid_follow_redirects'],
  ['empty idempotency token', { ...base, idempotency_token: '' }, 'invalid_idempotency_token'],
  ['unknown field', { ...base, colour: 'red' }, 'unknown_field'],
  ['unknown artifact option', { ...base, artifact_options: { include_video: true } }, 'unknown_field'],
  ['browser artifact option on light', { ...base, artifact_options: { include_screenshot: true } }, 'invalid_include_screenshot_tier'],
  ['artifact option not boolean', { ...base, artifact_options: { include_html: 'yes' } }, 'invalid_include_html'],
  ['wait_until on light', { ...base, wait_until: 'load' }, 'invalid_wait_until_tier'],
  ['proxy on light', { ...base, proxy: { server: 'http://proxy.example.com:8080' } }, 'invalid_proxy_tier'],
  ['viewport on light', { ...base, viewport: { width: 800, height: 600 } }, 'invalid_viewport_tier'],
]

for (const [name, body, code] of cases) {
  t.test(name, async (t) => {
    const answer = await svc.api('POST', '/v1/jobs', { key, body })
    t.equal(answer.status, 422, JSON.stringify(answer.body))
    t.equal(answer.body.error.code, codesOf(answer.body)[0], 'the top-level code is the first failing field\'s')
    t.ok(codesOf(answer.body).includes(code), `expected ${code} in ${codesOf(answer.body).join(', ')}`)
    for (const detail of answer.body.error.details) t.type(detail.field, 'string')
  })
}

t.test('every failing field is listed, not only the first', async (t) => {
  const answer = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: 'http://10.0.0.1/', timeout_ms: 5, method: 'BREW', max_redirects: 99 } })
  t.equal(answer.status, 422)
  t.same(new Set(codesOf(answer.body)), new Set(['unsafe_target_url', 'invalid_timeout_ms', 'invalid_method', 'invalid_max_redirects']))
})

t.test('a body that is not JSON answers 400 malformed_body', async (t) => {
  const broken = await svc.api('POST', '/v1/jobs', { key, rawBody: '{"job_type": "light",', headers: { 'content-type': 'application/json' } })
  t.equal(broken.status, 400)
  t.equal(broken.body.error.code, 'malformed_body')
  const array = await svc.api('POST', '/v1/jobs', { key, body: [1, 2] })
  t.equal(array.status, 422)
  t.ok(codesOf(array.body).includes('invalid_body'))
})

t.test('rejected submissions create no job', async (t) => {
  const list = await svc.api('GET', '/v1/jobs', { key })
  t.equal(list.status, 200)
  t.equal(list.body.total, 0)
})

t.test('query parameters are validated', async (t) => {
  const answer = await svc.api('GET', '/v1/jobs?per_page=1000', { key })
  t.equal(answer.status, 422)
  t.equal(answer.body.error.code, 'invalid_per_page')
})

t.test('a missing required field answers 400 naming the field (SPEC 7.1)', async (t) => {
  const noType = await svc.api('POST', '/v1/jobs', { key, body: { target_url: 'https://example.com/', timeout_ms: 5 } })
  t.equal(noType.status, 400, noType.text)
  t.equal(noType.body.error.code, 'missing_job_type')
  const noUrl = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light' } })
  t.equal(noUrl.status, 400)
  t.equal(noUrl.body.error.code, 'missing_target_url')
  const neither = await svc.api('POST', '/v1/jobs', { key, body: {} })
  t.equal(neither.status, 400)
  t.same(codesOf(neither.body), ['missing_job_type', 'missing_target_url'])
  const wrongType = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 7, target_url: 'https://example.com/' } })
  t.equal(wrongType.status, 422, 'a present field of the wrong type stays 422')
})

t.test('on 422 the top-level code is the first failing field\'s, and details list every one', async (t) => {
  const answer = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'standard', target_url: 'https://example.com/', wait_until: 'never', timeout_ms: 1 } })
  t.equal(answer.status, 422)
  t.equal(answer.body.error.code, 'invalid_timeout_ms')
  t.same(new Set(codesOf(answer.body)), new Set(['invalid_timeout_ms', 'invalid_wait_until']))
  const single = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'standard', target_url: 'https://example.com/', wait_until: 'never' } })
  t.equal(single.body.error.code, 'invalid_wait_until')
})

t.test('tags are free-form labels', async (t) => {
  const tags = ['env=prod', 'my tag', '#promo', 'été', 'a/b:c']
  const answer = await svc.api('POST', '/v1/jobs', { key, body: { ...base, tags } })
  t.equal(answer.status, 202, answer.text)
  t.same(answer.body.tags, tags)
  const found = await svc.api('GET', `/v1/jobs?tag=${encodeURIComponent('my tag')}`, { key })
  t.same(found.body.items.map((j: any) => j.job_id), [answer.body.job_id])
})

t.test('paging parameters are bounded on every list endpoint (no store error on a huge page)', async (t) => {
  for (const path of ['/v1/jobs', '/v1/audit-log']) {
    for (const page of ['99999999999999999999', '1e300', '10001']) {
      const answer = await svc.api('GET', `${path}?page=${page}`, { key })
      t.equal(answer.status, 422, `${path} page=${page}: ${answer.text}`)
      t.equal(answer.body.error.code, 'invalid_page')
    }
    const deepest = await svc.api('GET', `${path}?page=10000&per_page=100`, { key })
    t.equal(deepest.status, 200, `${path}: ${deepest.text}`)
    t.same(deepest.body.items, [])
  }
})

t.test('invalid Unicode and control characters are refused where a string reaches a key, a header or a URL', async (t) => {
  const loneHigh = '\ud800'
  const loneLow = '\udc00'
  const cases: [string, Record<string, unknown>, string, string][] = [
    ['lone high surrogate in idempotency_token', { ...base, idempotency_token: `tok${loneHigh}` }, 'idempotency_token', 'invalid_idempotency_token'],
    ['lone low surrogate in idempotency_token', { ...base, idempotency_token: `tok${loneLow}` }, 'idempotency_token', 'invalid_idempotency_token'],
    ['NUL in idempotency_token', { ...base, idempotency_token: 'tok\u0000' }, 'idempotency_token', 'invalid_idempotency_token'],
    ['lone surrogate in hook_id', { ...base, extraction: { hooks: [{ hook_id: `h${loneHigh}`, type: 'css', selector: 'h1' }] } }, 'extraction.hooks[0].hook_id', 'invalid_hook_id'],
    ['lone surrogate in a header value', { ...base, headers: { 'x-a': `v${loneLow}` } }, 'headers.x-a', 'invalid_header_value'],
    ['NUL in a header value', { ...base, headers: { 'x-a': 'v\u0000' } }, 'headers.x-a', 'invalid_header_value'],
    ['a header value beyond Latin-1', { ...base, headers: { 'x-a': 'price in €' } }, 'headers.x-a', 'invalid_header_value'],
    ['a bad header name', { ...base, headers: { 'x a': 'v' } }, 'headers.x a', 'invalid_header_name'],
    ['NUL in user_agent', { ...base, user_agent: 'bot\u0000' }, 'user_agent', 'invalid_user_agent'],
    ['lone surrogate in target_url', { ...base, target_url: `https://example.com/${loneHigh}` }, 'target_url', 'invalid_target_url'],
    ['control character in a proxy password', { job_type: 'stealth', target_url: 'https://example.com/', proxy: { server: 'http://proxy.example.com:8080', username: 'u', password: 'p\u0001' } }, 'proxy.password', 'invalid_proxy_password'],
  ]
  for (const [name, body, field, code] of cases) {
    const answer = await svc.api('POST', '/v1/jobs', { key, body })
    t.equal(answer.status, 422, `${name}: ${answer.text}`)
    t.ok(answer.body.error.details.some((d: any) => d.field === field && d.code === code), `${name}: ${answer.text}`)
  }
  // Two tokens that differ only in their lone surrogate used to land on one job.
  const first = await svc.api('POST', '/v1/jobs', { key, body: { ...base, idempotency_token: `same${loneHigh}` } })
  const second = await svc.api('POST', '/v1/jobs', { key, body: { ...base, idempotency_token: `same${loneLow}` } })
  t.equal(first.status, 422)
  t.equal(second.status, 422)
  const latin = await svc.api('POST', '/v1/jobs', { key, body: { ...base, headers: { 'accept-language': 'fr-FR, fr;q=0.9', 'x-name': 'José' }, user_agent: 'Mozilla/5.0 (X11)' } })
  t.equal(latin.status, 202, latin.text)
})

t.test('unknown nested fields are refused with their path, and lists are capped', async (t) => {
  const standard = { job_type: 'standard', target_url: 'https://example.com/' }
  const unknown: [Record<string, unknown>, string][] = [
    [{ ...standard, viewport: { width: 800, height: 600, depth: 24 } }, 'viewport.depth'],
    [{ ...standard, actions: [{ type: 'click', selector: 'a', x: 1 }] }, 'actions[0].x'],
    [{ ...standard, actions: [{ type: 'wait', timeout_ms: 10, selector: 'a' }] }, 'actions[0].selector'],
    [{ ...base, retry_policy: { max_attempts: 2, tries: 3 } }, 'retry_policy.tries'],
    [{ ...base, extraction: { hooks: [{ hook_id: 'a', type: 'css', selector: 'h1', zzz: 1 }] } }, 'extraction.hooks[0].zzz'],
  ]
  for (const [body, field] of unknown) {
    const answer = await svc.api('POST', '/v1/jobs', { key, body })
    t.equal(answer.status, 422, field)
    t.ok(answer.body.error.details.some((d: any) => d.code === 'unknown_field' && d.field === field), `${field}: ${answer.text}`)
  }
  const manyHeaders = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`x-h${i}`, 'v']))
  const headers = await svc.api('POST', '/v1/jobs', { key, body: { ...base, headers: manyHeaders } })
  t.equal(headers.status, 422)
  t.equal(headers.body.error.code, 'invalid_headers')
  const fifty = await svc.api('POST', '/v1/jobs', { key, body: { ...base, headers: Object.fromEntries(Object.entries(manyHeaders).slice(0, 50)) } })
  t.equal(fifty.status, 202, '50 headers are fine')
  const statuses = await svc.api('POST', '/v1/jobs', { key, body: { ...base, retry_policy: { retry_on_status: Array.from({ length: 100_000 }, () => 503) } } })
  t.equal(statuses.status, 422)
  t.equal(statuses.body.error.code, 'invalid_retry_policy')
  const methods = await svc.api('POST', '/v1/jobs', { key, body: { ...base, retry_policy: { retry_methods: Array.from({ length: 1000 }, () => 'GET') } } })
  t.equal(methods.status, 422)
})
