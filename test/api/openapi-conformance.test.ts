import { connect } from 'node:net'
import t from 'tap'
import { SCOPES } from '../../domain/scopes.js'
import { startService } from '../helpers/service.js'

/** Walks every documented operation and checks that what the service answers is what /openapi.json declares. */
const svc = await startService({ roles: ['api', 'projector'], dns: {} })
t.teardown(() => svc.close())
const org = await svc.createOrg('pro')

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
    if (path.includes('{')) for (const status of [414, 422]) t.ok(declared(op, status), `${name} declares ${status}`)
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
      const overlong = await svc.api(method.toUpperCase(), concrete(path, 'x'.repeat(150)), { key: org.key })
      t.equal(overlong.status, 414, `${name} with a 150-character id`)
      t.ok(isErrorBody(overlong.body), `${name} 414 body: ${overlong.text}`)
      const invalid = await svc.api(method.toUpperCase(), concrete(path, 'x'.repeat(65)), { key: org.key })
      t.ok(declared(op, invalid.status), `${name} with a 65-character id answers a declared ${invalid.status}`)
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
    const answer = await svc.api(other, concrete(path, 'x'), { key: org.key })
    t.equal(answer.status, 405, `${other} ${path}`)
    t.equal(answer.body.error?.code, 'method_not_allowed')
    for (const method of allowed) t.match(answer.headers.get('allow'), method, `Allow names ${method}`)
  }
  t.equal((await svc.api('GET', '/v1/nothing-here')).status, 404, 'an unknown path is still 404')
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
