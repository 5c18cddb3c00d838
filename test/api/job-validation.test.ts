import t from 'tap'
import { startService } from '../helpers/service.js'

const svc = await startService({ allowlist: ['127.0.0.1:9'] })
t.teardown(() => svc.close())
const { key } = await svc.createOrg('pro')
const base = { job_type: 'light', target_url: 'https://example.com/' }

const codesOf = (body: any): string[] => (body?.error?.details ?? []).map((d: any) => d.code)

/** Each case: a body and the code it must produce (422 unless said otherwise), and no job is created. */
const cases: [string, Record<string, unknown>, string][] = [
  ['missing job_type', { target_url: 'https://example.com/' }, 'missing_job_type'],
  ['unknown job_type', { ...base, job_type: 'heavy' }, 'invalid_job_type'],
  ['missing target_url', { job_type: 'light' }, 'missing_target_url'],
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
  ['tag with spaces', { ...base, tags: ['a b'] }, 'invalid_tags'],
  ['retry_policy max_attempts 0', { ...base, retry_policy: { max_attempts: 0 } }, 'invalid_retry_policy'],
  ['retry_policy bad status', { ...base, retry_policy: { retry_on_status: [99] } }, 'invalid_retry_policy'],
  ['retry_policy bad method', { ...base, retry_policy: { retry_methods: ['FETCH'] } }, 'invalid_retry_policy'],
  ['retry_policy unknown field', { ...base, retry_policy: { tries: 3 } }, 'invalid_retry_policy'],
  ['headers with newline', { ...base, headers: { 'x-a': 'b\r\nx-injected: 1' } }, 'invalid_headers'],
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
    t.equal(answer.body.error.code, 'validation_failed')
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
  t.equal(answer.body.error.code, 'validation_failed')
})
