import t from 'tap'
import { startFixtureSite } from '../fixtures/site.js'
import { colleagueOf, signUp } from '../helpers/account.js'
import { startService, waitFor } from '../helpers/service.js'

const site = await startFixtureSite({
  '/empty': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end() },
})
t.teardown(() => site.close())
const SCRAPES_PER_MINUTE = 25
const svc = await startService({
  allowlist: [`127.0.0.1:${site.port}`],
  env: { LOGIN_ATTEMPTS_PER_MINUTE: '1000', SCRAPES_PER_MINUTE: String(SCRAPES_PER_MINUTE) },
})
t.teardown(() => svc.close())

const ENVELOPE_FIELDS = ['id', 'jobId', 'resultId', 'resultKey', 'status', 'ok', 'statusCode', 'headers', 'html', 'htmlKey', 'screenshot', 'screenshotKey', 'errorCode', 'errorMessage']
const scrape = (headers: Record<string, string>, body: unknown) => svc.api('POST', '/scrapes', { headers, body })

t.test('/scrapes needs a bearer token or the session cookie', async (t) => {
  t.equal((await svc.api('POST', '/scrapes', { body: { url: `${site.origin}/page`, backend: 'httpx' } })).status, 401)
  t.same((await svc.api('GET', '/scrapes')).body, { authenticated: false })
  t.equal((await svc.api('GET', '/scrapes/x', { headers: { authorization: 'Bearer nope' } })).status, 401)
  const user = await signUp(svc)
  const viaCookie = await scrape(await user.session(), { url: `${site.origin}/page`, backend: 'httpx' })
  t.equal(viaCookie.status, 200, 'the session cookie works like the token')
})

t.test('httpx scrape: 200 with every envelope field, the page, its status and headers', async (t) => {
  const user = await signUp(svc)
  const answer = await scrape(user.bearer, { url: `${site.origin}/page`, backend: 'httpx' })
  t.equal(answer.status, 200)
  t.same(Object.keys(answer.body).sort(), [...ENVELOPE_FIELDS].sort())
  const b = answer.body
  t.equal(b.ok, true)
  t.equal(b.status, 'succeeded')
  t.equal(b.jobId, b.id)
  t.equal(b.statusCode, 200)
  t.equal(b.headers['x-fixture'], 'page')
  t.match(b.html, /<h1 id="title">Widget<\/h1>/)
  t.equal(b.htmlKey, `${b.id}/${b.resultId}`)
  t.equal(b.resultKey, b.htmlKey)
  t.equal(b.screenshot, null)
  t.equal(b.screenshotKey, null)
  t.equal(b.errorCode, null)
  t.equal(b.errorMessage, null)
  // The job is the organization's v1 job: billed like one.
  const got = await svc.api('GET', `/scrapes/${b.id}`, { headers: user.bearer })
  t.equal(got.status, 200)
  t.same(got.body, {
    id: b.id, url: `${site.origin}/page`, backend: 'httpx', status: 'succeeded', statusCode: 200, saveHtml: true, takeScreenshot: false,
    createdAt: got.body.createdAt, completedAt: got.body.completedAt, screenshotUrl: null, errorCode: null, errorMessage: null,
  })
  t.ok(Date.parse(got.body.completedAt) >= Date.parse(got.body.createdAt))
})

t.test('include_body and its alias saveHtml: without them there is no html; the two must not disagree', async (t) => {
  const user = await signUp(svc)
  for (const body of [{ include_body: false }, { saveHtml: false }]) {
    const answer = await scrape(user.bearer, { url: `${site.origin}/page`, backend: 'httpx', ...body })
    t.equal(answer.status, 200)
    t.equal(answer.body.html, null)
    t.equal(answer.body.htmlKey, null)
    t.equal(answer.body.resultId, null)
    t.equal(answer.body.statusCode, 200)
  }
  const conflicting = await scrape(user.bearer, { url: `${site.origin}/page`, backend: 'httpx', include_body: true, saveHtml: false })
  t.equal(conflicting.status, 422)
  t.same(conflicting.body.errors.map((e: any) => [e.field, e.code]), [['saveHtml', 'conflicting_alias']])
  const listed = await svc.api('GET', '/scrapes', { headers: user.bearer })
  t.same(listed.body.items.map((i: any) => i.saveHtml), [false, false], 'the refused request recorded nothing')
})

t.test('an empty 2xx answer is ok with an empty html, never a missing body', async (t) => {
  const user = await signUp(svc)
  const answer = await scrape(user.bearer, { url: `${site.origin}/empty`, backend: 'httpx' })
  t.equal(answer.status, 200)
  t.equal(answer.body.ok, true)
  t.equal(answer.body.html, '')
  t.not(answer.body.htmlKey, null)
})

t.test('validation: 422 with errors naming the fields; nothing is recorded', async (t) => {
  const user = await signUp(svc)
  const cases: [unknown, [string, string][]][] = [
    [{}, [['url', 'missing_url'], ['backend', 'missing_backend']]],
    [{ url: `${site.origin}/page`, backend: 'curl' }, [['backend', 'invalid_backend']]],
    [{ url: `${site.origin}/page`, backend: 'httpx', take_screenshot: true }, [['take_screenshot', 'screenshot_needs_browser']]],
    [{ url: `${site.origin}/page`, backend: 'httpx', takeScreenshot: true }, [['takeScreenshot', 'screenshot_needs_browser']]],
    [{ url: `${site.origin}/page`, backend: 'httpx', timeout: 0 }, [['timeout', 'invalid_timeout']]],
    [{ url: `${site.origin}/page`, backend: 'httpx', timeout: 301 }, [['timeout', 'invalid_timeout']]],
    [{ url: `${site.origin}/page`, backend: 'playwright', wait_until: 'commit' }, [['wait_until', 'invalid_wait_until']]],
    [{ url: `${site.origin}/page`, backend: 'httpx', include_body: 'yes' }, [['include_body', 'invalid_include_body']]],
    [{ url: `${site.origin}/page`, backend: 'httpx', extra: 1 }, [['extra', 'unknown_field']]],
    [{ url: 'ftp://example.com/', backend: 'httpx' }, [['url', 'invalid_url']]],
    [{ url: 'http://10.1.2.3/', backend: 'httpx' }, [['url', 'unsafe_url']]],
  ]
  for (const [body, expected] of cases) {
    const answer = await scrape(user.bearer, body)
    t.equal(answer.status, 422, JSON.stringify(body))
    t.equal(answer.body.detail, 'validation_error')
    t.same(answer.body.errors.map((e: any) => [e.field, e.code]), expected, JSON.stringify(body))
  }
  const malformed = await svc.api('POST', '/scrapes', { headers: { ...user.bearer, 'content-type': 'application/json' }, rawBody: '{"url":' })
  t.equal(malformed.status, 400)
  t.same(malformed.body, { error: 'malformed_body' })
  const tooLarge = await svc.api('POST', '/scrapes', { headers: user.bearer, body: { url: `${site.origin}/page?${'a'.repeat(2 * 1024 * 1024)}`, backend: 'httpx' } })
  t.same([tooLarge.status, tooLarge.body], [413, { detail: 'payload_too_large' }], 'a body over 2 MiB (declared in OpenAPI)')
  t.equal((await svc.api('GET', '/scrapes', { headers: user.bearer })).body.total, 0)
})

t.test('a scrape that completes with a failure: 422, ok false, the job\'s failure reason as errorCode', async (t) => {
  const user = await signUp(svc)
  const answer = await scrape(user.bearer, { url: `${site.origin}/status?code=503`, backend: 'httpx' })
  t.equal(answer.status, 422)
  t.same(Object.keys(answer.body).sort(), [...ENVELOPE_FIELDS].sort())
  t.equal(answer.body.ok, false)
  t.equal(answer.body.status, 'failed')
  t.equal(answer.body.errorCode, 'upstream_error')
  t.type(answer.body.errorMessage, 'string')
  t.equal(answer.body.html, null)
  const got = await svc.api('GET', `/scrapes/${answer.body.id}`, { headers: user.bearer })
  t.equal(got.body.status, 'failed')
  t.equal(got.body.errorCode, 'upstream_error')
  t.equal(got.body.errorMessage, answer.body.errorMessage)
})

t.test('a fetch that exceeds the scrape timeout: 422 errorCode timeout', async (t) => {
  const user = await signUp(svc)
  const started = Date.now()
  const answer = await scrape(user.bearer, { url: `${site.origin}/slow?ms=5000`, backend: 'httpx', timeout: 1 })
  t.equal(answer.status, 422)
  t.equal(answer.body.errorCode, 'timeout')
  t.ok(Date.now() - started < 5000, 'the fetch gave up at its timeout')
})

t.test('playwright with take_screenshot: a PNG data URL, then a signed screenshotUrl on GET', async (t) => {
  const user = await signUp(svc)
  const answer = await scrape(user.bearer, { url: `${site.origin}/page`, backend: 'playwright', takeScreenshot: true, wait_until: 'domcontentloaded', include_body: false })
  t.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 300))
  t.match(answer.body.screenshot, /^data:image\/png;base64,iVBORw0KGgo/)
  t.equal(answer.body.screenshotKey.startsWith(`${answer.body.id}/`), true)
  t.equal(answer.body.html, null)
  const got = await svc.api('GET', `/scrapes/${answer.body.id}`, { headers: user.bearer })
  t.equal(got.body.takeScreenshot, true)
  const download = await fetch(got.body.screenshotUrl)
  t.equal(download.status, 200)
  t.same(Buffer.from(await download.arrayBuffer()).subarray(0, 8), Buffer.from(answer.body.screenshot.split(',')[1], 'base64').subarray(0, 8))
})

t.test('GET /scrapes: filters, pagination edges, sort orders; a colleague sees them, another organization\'s user gets 404', async (t) => {
  const user = await signUp(svc)
  const ids: string[] = []
  for (const path of ['/page', '/json', '/status?code=503']) {
    ids.push((await scrape(user.bearer, { url: `${site.origin}${path}`, backend: 'httpx' })).body.id)
    await new Promise((r) => setTimeout(r, 5))
  }
  const list = (query: string) => svc.api('GET', `/scrapes${query}`, { headers: user.bearer })
  const all = await list('')
  t.same(all.body.items.map((i: any) => i.id), [...ids].reverse(), 'newest first by default')
  t.same({ ...all.body, items: undefined }, { items: undefined, total: 3, page: 1, perPage: 20, pageCount: 1 })
  t.same((await list('?sort=createdAt&dir=asc')).body.items.map((i: any) => i.id), ids)
  t.same((await list('?sort=completedAt&dir=asc')).body.items.map((i: any) => i.id), ids, 'completed in the order they were asked')
  t.same((await list('?sort=completedAt&dir=desc')).body.items.map((i: any) => i.id), [...ids].reverse())
  const paged = await list('?perPage=2&page=2&dir=asc')
  t.same(paged.body.items.map((i: any) => i.id), [ids[2]])
  t.same([paged.body.total, paged.body.page, paged.body.perPage, paged.body.pageCount], [3, 2, 2, 2])
  const past = await list('?perPage=2&page=5')
  t.same(past.body.items, [])
  t.same([past.body.total, past.body.pageCount], [3, 2])
  const tooMany = await list('?perPage=101')
  t.equal(tooMany.status, 422)
  t.same(tooMany.body.errors.map((e: any) => e.field), ['perPage'])
  t.equal((await list('?perPage=0')).status, 422)
  t.equal((await list('?page=0')).status, 422)
  t.equal((await list('?sort=url')).status, 422)
  t.equal((await list('?status=queued')).status, 422)
  t.same((await list('?status=failed')).body.items.map((i: any) => i.id), [ids[2]])
  t.same((await list('?status=succeeded&dir=asc')).body.items.map((i: any) => i.id), [ids[0], ids[1]])
  t.same((await list('?status=pending')).body.total, 0)
  t.same((await list('?q=JSON')).body.items.map((i: any) => i.id), [ids[1]], 'q is a case-insensitive URL substring')
  t.same((await list('?backend=playwright')).body.total, 0)
  t.same((await list('?backend=httpx')).body.total, 3)

  // A colleague the operator added to the organization (`cli user create`) sees its scrapes.
  const colleague = await colleagueOf(svc, user)
  t.same((await svc.api('GET', '/scrapes?dir=asc', { headers: colleague.bearer })).body.items.map((i: any) => i.id), ids, "the organization's scrapes")
  t.equal((await svc.api('GET', `/scrapes/${ids[0]}`, { headers: colleague.bearer })).status, 200)

  const stranger = await signUp(svc)
  const theirs = await svc.api('GET', `/scrapes/${ids[0]}`, { headers: stranger.bearer })
  t.equal(theirs.status, 404)
  t.same(theirs.body, { detail: 'scrape_not_found' })
  t.equal((await svc.api('GET', '/scrapes', { headers: stranger.bearer })).body.total, 0)
  t.equal((await svc.api('GET', '/scrapes/00000000-0000-4000-8000-000000000000', { headers: user.bearer })).status, 404)
})

t.test(`per-user request rate: ${SCRAPES_PER_MINUTE} /scrapes requests a minute, then 429 with Retry-After`, async (t) => {
  const user = await signUp(svc)
  const other = await signUp(svc)
  for (let i = 0; i < SCRAPES_PER_MINUTE; i++) t.equal((await svc.api('GET', '/scrapes', { headers: user.bearer })).status, 200)
  const limited = await svc.api('POST', '/scrapes', { headers: user.bearer, body: { url: `${site.origin}/page`, backend: 'httpx' } })
  t.equal(limited.status, 429)
  t.same(limited.body, { detail: 'scrape_rate_limited' })
  t.ok(Number(limited.headers.get('retry-after')) >= 1)
  t.equal(limited.headers.get('x-ratelimit-limit'), String(SCRAPES_PER_MINUTE))
  t.equal((await svc.api('GET', '/scrapes', { headers: other.bearer })).status, 200, 'another user has their own window')
})

t.test('the plan applies: a Free organization runs 2 jobs at once', async (t) => {
  // Two scrapes hold both of the plan's concurrent jobs; the third is refused and records nothing.
  const user = await signUp(svc)
  const holding = [0, 1].map(() => scrape(user.bearer, { url: `${site.origin}/slow?ms=3000`, backend: 'httpx', timeout: 10 }))
  await waitFor(async () => (await svc.api('GET', '/scrapes?status=pending', { headers: user.bearer })).body.total === 2)
  const third = await scrape(user.bearer, { url: `${site.origin}/page`, backend: 'httpx' })
  t.equal(third.status, 429)
  t.same(third.body, { detail: 'plan_limit_concurrent_jobs' })
  t.ok(third.headers.get('retry-after'))
  t.same((await Promise.all(holding)).map((a) => a.status), [200, 200])
  t.equal((await svc.api('GET', '/scrapes', { headers: user.bearer })).body.total, 2)
})
