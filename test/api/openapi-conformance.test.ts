import { connect } from 'node:net'
import t from 'tap'
import { brokenLinks } from '../../api/openapi-links.js'
import { SCOPES } from '../../domain/scopes.js'
import { signUp } from '../helpers/account.js'
import { startService } from '../helpers/service.js'

/** Walks every documented operation and checks that what the service answers is what /openapi.json declares. */
const svc = await startService({ roles: ['api', 'projector', 'mailer'], dns: {} })
t.teardown(() => svc.close())
const org = await svc.createOrg('pro')
// A verified user's bearer token, so account routes reach their parameter checks.
const userToken = (await signUp(svc)).bearer.authorization.slice('Bearer '.length)

const doc = (await svc.api('GET', '/openapi.json')).body
const METHODS = ['get', 'post', 'put', 'delete', 'patch']
const operations = Object.entries(doc.paths as Record<string, Record<string, any>>)
  .flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] })))
const usesKey = (op: any) => (op.security ?? []).some((s: any) => 'apiKey' in s)
const concrete = (path: string, value: string) => path.replace(/\{[^}]+\}/g, value)
const isErrorBody = (body: any) => typeof body?.error?.code === 'string' && typeof body?.error?.message === 'string'
const declared = (op: any, status: number) => String(status) in op.responses

t.test('every operation declares a success answer and the answers every route of its kind can give', async (t) => {
  t.ok(operations.length >= 15, `${operations.length} operations`)
  for (const { path, method, op } of operations) {
    const name = `${method.toUpperCase()} ${path}`
    t.ok(Object.keys(op.responses).some((s) => /^2\d\d$/.test(s)), `${name} declares a 2xx answer`)
    if (usesKey(op)) for (const status of [401, 403, 429]) t.ok(declared(op, status), `${name} declares ${status}`)
    if (path.includes('{')) t.ok(declared(op, 422), `${name} declares 422`)
    // The account API declares its own error bodies (api/account/schemas.ts); a v1 body can answer these three.
    if (op.requestBody && !op.tags?.includes('account')) for (const status of [400, 413, 422]) t.ok(declared(op, status), `${name} declares ${status}`)
    if (op.requestBody) t.ok(declared(op, 413), `${name} declares 413 (a body over the limit)`)
  }
})

t.test('walking the routes: every answer is declared and v1 errors have the error body shape', async (t) => {
  for (const { path, method, op } of operations) {
    const name = `${method.toUpperCase()} ${path}`
    if (usesKey(op)) {
      const anonymous = await svc.api(method.toUpperCase(), concrete(path, 'x'))
      t.equal(anonymous.status, 401, `${name} without a key`)
      t.ok(isErrorBody(anonymous.body), `${name} 401 body`)
    }
    if (path.includes('{')) {
      // Issue 32: past the router's old 100-character limit a parameter answered 414, which no schema declared.
      for (const length of [65, 150, 5000]) {
        const overlong = await svc.api(method.toUpperCase(), concrete(path, 'x'.repeat(length)), { key: org.key, headers: { authorization: `Bearer ${userToken}` } })
        t.equal(overlong.status, 422, `${name} with a ${length}-character id`)
        t.ok(op.tags?.includes('account') ? overlong.body.detail === 'validation_error' : isErrorBody(overlong.body), `${name} 422 body: ${overlong.text.slice(0, 200)}`)
      }
    }
  }
  const download = await svc.api('GET', '/artifacts/download?key=a&expires=1&name=b&sig=c')
  t.ok([403, 410].includes(download.status) && isErrorBody(download.body), `a forged download URL: ${download.status}`)
  t.equal((await svc.api('GET', '/artifacts/download')).status, 422, 'a download URL without its parameters')
})

t.test('the rate limit applies to every v1 call, as declared', async (t) => {
  // Every scope, so each GET is refused by the rate limit and not by a missing scope.
  const limited = await svc.api('POST', '/v1/keys', { key: org.key, body: { name: 'slow', scopes: SCOPES, rate_limit_rpm: 1 } })
  const gets = operations.filter(({ path, method, op }) => method === 'get' && usesKey(op) && !path.includes('{'))
  t.ok(gets.length >= 4)
  // The window is a calendar minute: start right after a boundary if we are close to the next one.
  if (Date.now() % 60_000 > 55_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 50))
  await svc.api('GET', '/v1/keys', { key: limited.body.api_key })
  for (const { path, op } of gets) {
    const answer = await svc.api('GET', path, { key: limited.body.api_key })
    t.equal(answer.status, 429, `GET ${path} over the rate limit`)
    t.ok(declared(op, 429) && isErrorBody(answer.body))
  }
})

t.test('a method a path does not have answers 405 with Allow', async (t) => {
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    const allowed = METHODS.filter((m) => item[m]).map((m) => m.toUpperCase())
    const other = ['PATCH', 'PUT', 'DELETE', 'POST'].find((m) => !allowed.includes(m))!
    // QUERY (a method with a body) without a Content-Type was refused by the body parser with 400 before (issue 32).
    for (const [method, init] of [[other, {}], ['QUERY', {}], ['QUERY', { rawBody: '{"a":1}', headers: { 'content-type': 'application/json' } }]] as const) {
      const answer = await svc.api(method, concrete(path, 'x'), { key: org.key, ...init })
      t.equal(answer.status, 405, `${method} ${path}`)
      t.equal(answer.body.error?.code, 'method_not_allowed')
      for (const method of allowed) t.match(answer.headers.get('allow'), method, `Allow names ${method}`)
    }
  }
  t.equal((await svc.api('GET', '/v1/nothing-here')).status, 404, 'an unknown path is still 404')
})

t.test('the schema says what the service accepts: audit-log from/to are date-times, hold bodies carry their required fields and limits (issue 32)', async (t) => {
  for (const path of ['/v1/audit-log', '/v1/audit-log/export']) {
    const query = doc.paths[path].get.parameters as { name: string; schema: Record<string, unknown> }[]
    for (const field of ['from', 'to']) t.match(query.find((p) => p.name === field)?.schema, { format: 'date-time', maxLength: 40 }, `${path} ${field}`)
    const rfc3339 = await svc.api('GET', `${path}?from=${encodeURIComponent('2020-01-31t00:00:00.1234567890z')}&to=${encodeURIComponent('2040-01-01T00:00:00+02:00')}`, { key: org.key })
    t.equal(rfc3339.status, 200, `${path}: an RFC 3339 date-time (lower-case t and z, ten fraction digits) is accepted`)
    const notDate = await svc.api('GET', `${path}?from=0000000000`, { key: org.key })
    t.equal(notDate.body.error?.code, 'invalid_from', `${path}: not a date-time`)
  }
  const place = doc.paths['/v1/org/retention-holds'].post.requestBody.content['application/json'].schema
  t.match(place, { required: ['scope_type', 'justification'], additionalProperties: false, properties: { scope_ref: { minLength: 1, maxLength: 128 }, justification: { minLength: 1, maxLength: 2000 } } })
  const release = doc.paths['/v1/org/retention-holds/{hold_id}/release'].post.requestBody.content['application/json'].schema
  t.match(release, { required: ['justification'], properties: { justification: { minLength: 1, maxLength: 2000, pattern: '\\S' } } })
})

t.test('creations link to the operations on what they created, for the stateful fuzz, and every link resolves', async (t) => {
  t.same(brokenLinks(doc.paths), [], 'every link names an operation of the document')
  t.ok(doc.paths['/v1/jobs'].post.responses['202'].links?.GetJob, 'POST /v1/jobs links to GET /v1/jobs/{job_id}')
  t.ok(doc.paths['/content-monitors'].post.responses['201'].links?.UpdateContentMonitor, 'POST /content-monitors links to its PATCH')
})

t.test('oversized headers answer 431 in the error body shape', async (t) => {
  const raw = await new Promise<string>((resolve) => {
    let data = ''
    const socket = connect(svc.port, '127.0.0.1', () => socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`))
    socket.on('data', (chunk) => { data += chunk.toString() })
    socket.on('close', () => resolve(data))
    socket.on('error', () => {})
  })
  t.match(raw, /^HTTP\/1\.1 431 /)
  t.ok(isErrorBody(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))), 'error body')
})
