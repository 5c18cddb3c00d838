import t from 'tap'
import { validateJobSpec, type JobSpec } from '../../domain/job/spec.js'
import { commonArtifacts } from '../../fetchers/page-artifacts.js'
import { closeCpuPool } from '../../fetchers/workers/index.js'

t.teardown(closeCpuPool)

const specOf = (input: Record<string, unknown>): JobSpec => {
  const result = validateJobSpec({ job_type: 'light', target_url: 'https://shop.example/p', ...input }, { allowlist: new Set(), isTimeZone: () => true })
  if (!result.ok) throw new Error(JSON.stringify(result.errors))
  return result.spec
}
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
const light = (body: Uint8Array) => ({ url: 'https://shop.example/p', bodyIsHtml: true, responseBody: body, responseContentType: 'text/html' })
const htmlOf = async (body: Uint8Array) => (await commonArtifacts('org', specOf({ artifact_options: { include_html: true } }), light(body))).find((a) => a.artifact_type === 'html')!.bytes

t.test('the light tier\'s html artifact is its UTF-8 response as is, or the response decoded as UTF-8', async (t) => {
  const utf8 = new TextEncoder().encode('<p>prix : 12 €</p>')
  t.equal(await htmlOf(utf8), utf8, 'valid UTF-8 without a byte order mark: the response bytes themselves')
  t.equal(decode(await htmlOf(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8]))), '<p>prix : 12 €</p>', 'a byte order mark is dropped')
  const latin1 = new Uint8Array([...new TextEncoder().encode('<p>caf'), 0xe9, ...new TextEncoder().encode('</p>')])
  t.equal(decode(await htmlOf(latin1)), '<p>caf\ufffd</p>', 'bytes that are not UTF-8 are replaced, as decoding them does')
})

t.test('extraction reads the response as the document and answers the json artifact\'s bytes', async (t) => {
  const spec = specOf({ extraction: { hooks: [{ hook_id: 'price', type: 'css', selector: 'p' }, { hook_id: 'euro', type: 'regex', pattern: '\\d+ €' }] } })
  const artifacts = await commonArtifacts('org', spec, light(new TextEncoder().encode('<html><body><p>prix : 12 €</p></body></html>')))
  const json = artifacts.find((a) => a.artifact_type === 'json')!
  t.equal(json.content_type, 'application/json')
  t.match(JSON.parse(decode(json.bytes)), { hooks: [{ hook_id: 'price', status: 'ok', result: 'prix : 12 €' }, { hook_id: 'euro', status: 'ok', result: '12 €' }] })
})
