import { readFileSync } from 'node:fs'
import t from 'tap'
import { INLINE_FORMAT_MAX_BYTES } from '../../domain/job/inline-formats.js'
import { startFixtureSite } from '../fixtures/site.js'
import { startService } from '../helpers/service.js'

// `formats` on the light tier, every 422 of the field, and the result route's inline content (with ?wait=).

const ARTICLE = readFileSync(new URL('../fixtures/browser/app.html', import.meta.url), 'utf8')
// Over the inline cap, with a character of several bytes straddling the cut.
const LONG_TEXT = `${'a'.repeat(INLINE_FORMAT_MAX_BYTES - 1)}€${'b'.repeat(1000)}`
const site = await startFixtureSite({
  '/article': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end(ARTICLE) },
  '/long': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end(`<html><body><p>${LONG_TEXT}</p></body></html>`) },
  '/late': async (_req, res) => {
    await new Promise((r) => setTimeout(r, 300))
    res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"late":true}')
  },
})
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`] })
t.teardown(async () => { await svc.close(); await site.close() })
const { key } = await svc.createOrg('pro')

const submit = async (body: Record<string, unknown>) => {
  const answer = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', ...body } })
  if (answer.status !== 202) throw new Error(`submission failed: ${answer.status} ${answer.text}`)
  return answer.body.job_id as string
}
const resultOf = async (jobId: string) => {
  const answer = await svc.api('GET', `/v1/jobs/${jobId}/result?wait=30`, { key })
  if (answer.status !== 200) throw new Error(`result: ${answer.status} ${answer.text}`)
  return answer.body
}

t.test('light makes markdown, html, rawHtml, text, links and metadata from its HTML', async (t) => {
  const job = await resultOf(await submit({ target_url: `${site.origin}/article`, formats: ['markdown', 'html', 'rawHtml', 'text', 'links', 'metadata'] }))
  t.equal(job.status, 'succeeded', job.failure_message)
  const f = job.formats
  t.same(Object.keys(f).sort(), ['html', 'links', 'markdown', 'metadata', 'rawHtml', 'text'])
  t.match(f.markdown, /^# Fixture headline/)
  t.match(f.markdown, `[the guide](${site.origin}/docs/guide)`)
  t.notMatch(f.markdown, 'About', 'navigation is not part of the article')
  t.equal(f.html, ARTICLE, 'html is the HTML response')
  t.equal(f.rawHtml, ARTICLE)
  t.match(f.text, 'Fixture headline\n')
  t.match(f.text, 'It talks, at some length')
  t.notMatch(f.text, 'IntersectionObserver', 'scripts are not text')
  t.notMatch(f.text, 'Fixture app', 'the head is not text')
  t.same(f.links, [`${site.origin}/about`, 'https://example.org/elsewhere', `${site.origin}/article#top`, `${site.origin}/docs/guide`])
  t.match(f.metadata, {
    url: `${site.origin}/article`, title: 'Fixture app', description: 'A JavaScript-rendered fixture page', canonical: `${site.origin}/app.html?canonical=1`,
    open_graph: { title: 'Fixture OG title', image: ['https://cdn.example.com/og-1.png', 'https://cdn.example.com/og-2.png'] },
    json_ld: [{ '@type': 'Article', headline: 'Fixture headline' }], json_ld_errors: 1,
  })
  t.same(job.formats_truncated, {})
  // Formats select artifacts: each is there to download as before.
  t.same(new Set(job.artifacts.map((a: any) => a.artifact_type)), new Set(['html', 'response_body', 'reader', 'text', 'links', 'page_metadata']))
  const fetched = await svc.api('GET', `/v1/jobs/${job.job_id}`, { key })
  t.notOk('formats' in fetched.body, 'GET /v1/jobs/{id} stays the record without content')
})

t.test('a JSON URL comes back as json; page views of a body that is not HTML are null', async (t) => {
  const job = await resultOf(await submit({ target_url: `${site.origin}/json`, formats: ['json', 'markdown', 'links'] }))
  t.equal(job.status, 'succeeded')
  t.same(job.formats, { json: { items: [{ id: 1, name: 'a' }, { id: 2, name: 'b' }] }, markdown: null, links: null })
  const html = await resultOf(await submit({ target_url: `${site.origin}/page`, formats: ['json'] }))
  t.same(html.formats, { json: null }, 'json of an HTML body is null')
})

t.test('the artifact options match the formats: the light tier makes page views on its own too', async (t) => {
  const job = await resultOf(await submit({ target_url: `${site.origin}/page`, artifact_options: { include_text: true, include_page_metadata: true } }))
  t.equal(job.status, 'succeeded')
  t.notOk('formats' in job, 'no formats asked, none inline')
  t.same(new Set(job.artifacts.map((a: any) => a.artifact_type)), new Set(['html', 'text', 'page_metadata']))
})

t.test('inline text is cut at the cap on a character boundary and names its artifact', async (t) => {
  const job = await resultOf(await submit({ target_url: `${site.origin}/long`, formats: ['text', 'links'] }))
  t.equal(job.status, 'succeeded')
  const text = job.artifacts.find((a: any) => a.artifact_type === 'text')
  t.equal(job.formats.text, 'a'.repeat(INLINE_FORMAT_MAX_BYTES - 1), 'cut before the character that does not fit')
  t.same(job.formats_truncated, { text: { artifact_id: text.artifact_id, size: Buffer.byteLength(LONG_TEXT) } })
  t.same(job.formats.links, [])
})

t.test('?wait= holds the result until the job ended and answers the formats', async (t) => {
  const jobId = await submit({ target_url: `${site.origin}/late`, formats: ['json', 'rawHtml'] })
  const job = await resultOf(jobId)
  t.equal(job.status, 'succeeded')
  t.same(job.formats, { json: { late: true }, rawHtml: '{"late":true}' })
})

const codesOf = (body: any): string[] => (body?.error?.details ?? []).map((d: any) => `${d.field} ${d.code}`)
const invalid: [string, Record<string, unknown>, string][] = [
  ['not a list', { formats: 'markdown' }, 'formats invalid_formats'],
  ['an empty list', { formats: [] }, 'formats invalid_formats'],
  ['an unknown format', { formats: ['markdown', 'docx'] }, 'formats[1] unknown_format'],
  ['a format that is not a string', { formats: [7] }, 'formats[0] unknown_format'],
  ['a duplicate', { formats: ['text', 'links', 'text'] }, 'formats[2] duplicate_format'],
  ['screenshot on light', { formats: ['screenshot'] }, 'formats[0] format_not_supported_by_tier'],
  ['a full-page screenshot on light', { formats: ['markdown', 'screenshot@fullPage'] }, 'formats[1] format_not_supported_by_tier'],
  ['pdf on light', { formats: ['pdf'] }, 'formats[0] format_not_supported_by_tier'],
  ['a format whose artifact is turned off', { formats: ['html'], artifact_options: { include_html: false } }, 'formats[0] format_conflict'],
  ['both screenshots', { job_type: 'standard', formats: ['screenshot', 'screenshot@fullPage'] }, 'formats[1] format_conflict'],
  ['pdf in a headed browser', { job_type: 'standard', headless: false, formats: ['pdf'] }, 'formats[0] format_conflict'],
  ['pdf as an artifact option on light', { artifact_options: { include_pdf: true } }, 'artifact_options.include_pdf invalid_include_pdf_tier'],
]
for (const [name, body, expected] of invalid) {
  t.test(`formats: ${name} answers 422`, async (t) => {
    const before = (await svc.api('GET', '/v1/jobs', { key })).body.total
    const answer = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `${site.origin}/page`, ...body } })
    t.equal(answer.status, 422, answer.text)
    t.same(codesOf(answer.body), [expected])
    t.equal(answer.body.error.code, expected.split(' ')[1])
    t.equal((await svc.api('GET', '/v1/jobs', { key })).body.total, before, 'no job created')
  })
}
