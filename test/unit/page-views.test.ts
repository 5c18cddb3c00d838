import t from 'tap'
import { validateJobSpec, type JobSpec } from '../../domain/job/spec.js'
import { commonArtifacts } from '../../fetchers/page-artifacts.js'
import { pageViews } from '../../fetchers/page-views/index.js'
import { closeCpuPool } from '../../fetchers/workers/index.js'

t.teardown(closeCpuPool)

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
const viewOf = (html: string, view: 'text' | 'links' | 'page_metadata' | 'reader', maxChars = 1_000_000, url = 'https://shop.example/a/p') =>
  decode(pageViews(html, url, [view], maxChars)[0]!.bytes)

t.test('text leaves out what no reader sees and breaks lines at blocks', async (t) => {
  const html = `<html><head><title>T</title><style>p{}</style></head><body>
    <h1>Title</h1><p>One   <b>bold</b>
    word</p><script>var x = 1</script><div hidden>secret</div><template><p>later</p></template>
    <ul><li>a</li><li>b</li></ul>x<br>y<pre>  keep
  spaces</pre></body></html>`
  t.equal(viewOf(html, 'text'), 'Title\n\nOne bold word\n\na\nb\nx\ny\n  keep\n  spaces')
  t.equal(viewOf(html, 'text', 9), 'Title\n\nOn', 'cut at maxChars')
})

t.test('links are absolute against the base, each once, until maxChars', async (t) => {
  const html = '<base href="/root/"><a href="x">1</a><a href="x">again</a><a href="https://other.example/">2</a><a href="http://[bad">3</a><a>no href</a>'
  t.same(JSON.parse(viewOf(html, 'links')), ['https://shop.example/root/x', 'https://other.example/'])
  t.same(JSON.parse(viewOf(html, 'links', 30)), ['https://shop.example/root/x'])
})

t.test('the light tier makes its page views from an HTML response only, in the CPU pool', async (t) => {
  const spec = (): JobSpec => {
    const checked = validateJobSpec({ job_type: 'light', target_url: 'https://shop.example/p', formats: ['text', 'links', 'metadata', 'markdown'] }, { allowlist: new Set(), isTimeZone: () => true })
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors))
    return checked.spec
  }
  const page = (contentType: string, body: string) => ({ url: 'https://shop.example/p', bodyIsHtml: /html/.test(contentType), responseBody: new TextEncoder().encode(body), responseContentType: contentType })
  const html = await commonArtifacts('org', spec(), page('text/html', '<title>Shop</title><p>Hi <a href="/b">b</a></p>'))
  t.same(html.map((a) => a.artifact_type).sort(), ['html', 'links', 'page_metadata', 'reader', 'text'])
  t.equal(decode(html.find((a) => a.artifact_type === 'text')!.bytes), 'Hi b')
  t.match(JSON.parse(decode(html.find((a) => a.artifact_type === 'page_metadata')!.bytes)), { title: 'Shop' })
  const json = await commonArtifacts('org', spec(), page('application/json', '{"a":1}'))
  t.same(json.map((a) => a.artifact_type), [], 'no views of a JSON body (no html artifact either)')
})
