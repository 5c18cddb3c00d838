import t from 'tap'
import { Effect } from 'effect'
import { unsubscribeToken } from '../../domain/detection/unsubscribe.js'
import { EventStore, type RecordedEvent } from '../../ports/event-store.js'
import { startFixtureSite } from '../fixtures/site.js'
import { startService, waitFor } from '../helpers/service.js'
import { tenant, type Tenant } from '../helpers/tenant.js'
import { startReceiver } from '../helpers/webhook-receiver.js'

/**
 * Every resource of organization A answers 404 to organization B on every method, as a missing one does. The routes
 * come from the served OpenAPI document, so a new route is covered as it is added: each path parameter is mapped to a
 * resource of A by the table below, and a path whose parameter has no entry fails the test.
 */
let visits = 0
const site = await startFixtureSite({
  // A page whose wording changes on every visit (a counter alone is noise default detection ignores): a v1 monitor's
  // second run records a change.
  '/counter': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(`<html><body><p>edition ${['amber', 'birch', 'cedar', 'dune'][++visits % 4]}</p></body></html>`) },
})
const receiver = await startReceiver()
const svc = await startService({
  allowlist: [`127.0.0.1:${site.port}`, receiver.allowlistEntry], env: { LOGIN_ATTEMPTS_PER_MINUTE: '1000', SCRAPES_PER_MINUTE: '1000' },
})
t.teardown(async () => { await svc.close(); await site.close(); await receiver.close() })

const a = await tenant(svc)
const b = await tenant(svc)
const RECIPIENT = 'owner-a@example.com'

/** waitFor, naming what did not happen. */
const until = (what: string, condition: () => Promise<boolean>) => waitFor(condition, 20_000).catch(() => { throw new Error(`${what} did not happen in time`) })
const ok = async (answer: Promise<{ status: number; body: any }>, status: number) => {
  const { status: got, body } = await answer
  if (got !== status) throw new Error(`expected ${status}, got ${got}: ${JSON.stringify(body)}`)
  return body
}

const runOnce = async (monitorId: string, key: string) => {
  const fired = await ok(svc.api('POST', `/v1/monitors/${monitorId}/runs`, { key }), 202)
  await until(`run ${fired.run_id} ends`, async () => {
    const runs = (await svc.api('GET', `/v1/monitors/${monitorId}/runs`, { key })).body.items as { run_id: string; status: string }[]
    return runs.some((run) => run.run_id === fired.run_id && !['queued', 'pending', 'minted'].includes(run.status))
  })
}

/**
 * One resource of each kind made by the tenant, keyed by the path parameter (named with the collection it follows)
 * that names it. `public`: not an organization's resource (the same for everyone), with the reason.
 */
const resourcesOf = async (owner: Tenant): Promise<Record<string, string | { readonly public: string }>> => {
  const job = await ok(svc.api('POST', '/v1/jobs', { key: owner.key, body: { job_type: 'light', target_url: `${site.origin}/page`, tags: ['env=a'] } }), 202)
  const result = (await svc.waitForResult(owner.key, job.job_id)).body
  const monitor = await ok(svc.api('POST', '/v1/monitors', {
    key: owner.key,
    body: { name: 'watched', cron: '0 3 * * *', job_type: 'light', target_url: `${site.origin}/counter`, detection: { mode: 'text', notify: { email: [RECIPIENT] } } },
  }), 201)
  await runOnce(monitor.id, owner.key)
  await runOnce(monitor.id, owner.key)
  await until('a change', async () => (await svc.api('GET', `/v1/monitors/${monitor.id}/changes`, { key: owner.key })).body.total > 0)
  const change = (await svc.api('GET', `/v1/monitors/${monitor.id}/changes`, { key: owner.key })).body.items[0]
  const extraKey = await ok(svc.api('POST', '/v1/keys', { key: owner.key, body: { name: 'second', scopes: ['jobs.read'] } }), 201)
  const endpoint = await ok(svc.api('POST', '/v1/webhook-endpoints', { key: owner.key, body: { url: receiver.url, enabled_events: ['job.completed'] } }), 201)
  await ok(svc.api('POST', `/v1/webhook-endpoints/${endpoint.endpoint_id}/test`, { key: owner.key }), 202)
  const deliveries = async () => (await svc.api('GET', `/v1/webhook-endpoints/${endpoint.endpoint_id}/deliveries`, { key: owner.key })).body.items
  await until('a delivery', async () => (await deliveries())[0]?.status === 'succeeded')
  const [delivery] = await deliveries()
  await ok(svc.api('PUT', '/v1/org/retention-policy', { key: owner.key, body: { retention_days: 30, legal_hold_enabled: true } }), 200)
  const hold = await ok(svc.api('POST', '/v1/org/retention-holds', { key: owner.key, body: { scope_type: 'job', scope_ref: job.job_id, justification: 'kept' } }), 201)
  const scrape = await ok(svc.api('POST', '/scrapes', { headers: owner.user.bearer, body: { url: `${site.origin}/page`, backend: 'httpx' } }), 200)
  const contentMonitor = await ok(svc.api('POST', '/content-monitors', {
    headers: owner.user.bearer, body: { url: `${site.origin}/page`, backend: 'httpx', frequencyMinutes: 60, rule: { type: 'any_change', config: {} } },
  }), 201)
  return {
    'jobs/{job_id}': job.job_id,
    'artifacts/{artifact_id}': result.artifacts[0].artifact_id,
    'monitors/{monitor_id}': monitor.id,
    'changes/{change_id}': change.change_id,
    'keys/{key_id}': extraKey.key_id,
    'webhook-endpoints/{endpoint_id}': endpoint.endpoint_id,
    'deliveries/{delivery_id}': delivery.delivery_id,
    'retention-holds/{hold_id}': hold.hold_id,
    'scrapes/{id}': scrape.id,
    'content-monitors/{id}': contentMonitor.id,
    'recipes/{slug}': { public: 'the recipe catalogue is the service\'s; a recipe run is a job (jobs/{job_id}) and its creation is in isolation-entry-points' },
  }
}
const RESOURCES_OF_A = await resourcesOf(a)
// B's own resources: a path naming B's own outer resource and A's inner one (B's job, A's artifact) must not reach A's either.
const RESOURCES_OF_B = await resourcesOf(b)

/** Bodies that pass validation, so the answer is about the resource and not the body. */
const BODIES: Record<string, unknown> = {
  'PATCH /v1/monitors/{monitor_id}': { name: 'taken by b' },
  'PATCH /v1/webhook-endpoints/{endpoint_id}': { description: 'taken by b', url: receiver.url },
  'POST /v1/org/retention-holds/{hold_id}/release': { justification: 'b releases it' },
  'PATCH /content-monitors/{id}': { name: 'taken by b', status: 'paused' },
  'POST /content-monitors/{id}/runs': { force: true },
}

/** Query strings tried besides none, where a route reads its resource on another path (a long poll). */
const QUERIES: Record<string, readonly string[]> = {
  'GET /v1/jobs/{job_id}/result': ['?wait=1'],
  'GET /content-monitors/{id}/runs': ['?limit=100'],
  'GET /v1/monitors/{monitor_id}/changes': ['?page=1&per_page=100'],
}

/**
 * Routes authorized by a signed link rather than an organization's credentials: B's credential there is a valid link
 * of B's own, and the answer must be the one a link for a missing monitor gets (it tells nothing about A's).
 */
const LINK_ROUTES: Partial<Record<string, (path: string) => string>> = {
  '/v1/monitors/{monitor_id}/unsubscribe': (path) =>
    `${path}?recipient=${encodeURIComponent(RECIPIENT)}&token=${unsubscribeToken(svc.config.signingSecret, RESOURCES_OF_B['monitors/{monitor_id}'] as string, RECIPIENT)}`,
}

const doc = (await svc.api('GET', '/openapi.json')).body as { paths: Record<string, Record<string, any>> }
const METHODS = ['get', 'put', 'post', 'patch', 'delete']
const paramsOf = (path: string) => [...path.matchAll(/([^/]+)\/\{([^}]+)\}/g)].map((m) => `${m[1]}/{${m[2]}}`)
const withIds = (path: string, ids: (param: string) => string) =>
  path.replace(/([^/]+)\/\{([^}]+)\}/g, (_all, collection: string, name: string) => `${collection}/${encodeURIComponent(ids(`${collection}/{${name}}`))}`)
const idPaths = Object.keys(doc.paths).filter((path) => path.includes('{'))
const privatePaths = idPaths.filter((path) => paramsOf(path).every((param) => typeof RESOURCES_OF_A[param] === 'string'))
const ofA = (param: string) => RESOURCES_OF_A[param] as string
/**
 * The ids to try in a path as B: all of A's, then each mix of B's own and A's (B's job with A's artifact). A's ids
 * become a missing id in the answer to compare with.
 */
const mixes = (path: string) => {
  const params = paramsOf(path)
  return Array.from({ length: 2 ** params.length - 1 }, (_, mask) => {
    const ownedByB = new Set(params.filter((_p, i) => (mask >> i) & 1))
    return {
      ids: (param: string) => (ownedByB.has(param) ? RESOURCES_OF_B : RESOURCES_OF_A)[param] as string,
      missing: (param: string) => ownedByB.has(param) ? RESOURCES_OF_B[param] as string : 'missing-0000',
      label: ownedByB.size === 0 ? '' : ` (B's own ${[...ownedByB].join(', ')})`,
    }
  })
}

/** How a request is authenticated as B: the account API by B's session, the v1 API by B's key. */
const asB = (path: string) => path.startsWith('/v1/') ? { key: b.key } : { headers: b.session }
const asA = (path: string) => path.startsWith('/v1/') ? { key: a.key } : { headers: a.session }
/** A signed link (and its expiry) is minted anew on each read: it is no change of the resource. */
const withoutSignedLinks = (body: unknown) => JSON.parse(JSON.stringify(body, function (this: Record<string, unknown>, key, value) {
  const signed = (text: unknown) => typeof text === 'string' && /[?&]sig=/.test(text)
  return signed(value) || (key === 'expires_at' && signed(this.url)) ? 'signed link' : value
}))
const codeOf = (body: any) => body?.error?.code ?? body?.detail ?? body?.error

const readLog = () => svc.run(Effect.flatMap(EventStore, (store) => store.readAll(0, 1_000_000))) as Promise<readonly RecordedEvent[]>
const streamsOfA = (log: readonly RecordedEvent[]) => new Set(log.filter((e) => e.org_id === a.orgId).map((e) => e.stream))

t.test('every path with an id parameter maps it to a resource of A', async (t) => {
  t.ok(idPaths.length >= 20, `${idPaths.length} paths with an id`)
  for (const path of idPaths) {
    for (const param of paramsOf(path)) t.ok(RESOURCES_OF_A[param] !== undefined, `${path}: ${param} has an entry in RESOURCES_OF_A`)
  }
  t.same(paramsOf('/v1/jobs/{job_id}/artifacts/{artifact_id}'), ['jobs/{job_id}', 'artifacts/{artifact_id}'])
})

/**
 * The routes the server answers (fastify's route tree), as `METHOD /path/{param}`: a route with an id that the
 * OpenAPI document leaves out would escape the enumeration, so each must be documented.
 */
const servedRoutes = () => {
  const prefixes: string[] = []
  const routes: string[] = []
  for (const line of svc.running.app!.printRoutes({ commonPrefix: false }).split('\n')) {
    const at = line.indexOf('── ')
    if (at < 0) continue
    const depth = (at - 1) / 4
    const [, segment, methods] = /^(.*?)(?: \(([^)]*)\))?$/.exec(line.slice(at + 3))!
    prefixes[depth] = `${depth === 0 ? '' : prefixes[depth - 1]}${segment}`
    const path = prefixes[depth]!.replace(/:([A-Za-z_]+)/g, '{$1}')
    for (const method of (methods ?? '').split(', ').filter((m) => m && m !== 'HEAD')) routes.push(`${method} ${path}`)
  }
  return routes
}

t.test('every route with an id the server answers is in the OpenAPI document', async (t) => {
  const withId = servedRoutes().filter((route) => route.includes('{'))
  t.ok(withId.includes('DELETE /v1/jobs/{job_id}') && withId.includes('PATCH /content-monitors/{id}'), `${withId.length} routes read from the server`)
  const documented = new Set(Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${path}`)))
  t.same(withId.filter((route) => !documented.has(route)), [], 'none is left out')
})

t.test('no list or summary B reads names any resource of A', async (t) => {
  const idsOfA = [...Object.values(RESOURCES_OF_A).filter((id): id is string => typeof id === 'string'), a.orgId, a.user.userId, a.keyId]
  const lists = Object.keys(doc.paths).filter((path) => !path.includes('{') && doc.paths[path]!.get?.security)
  t.ok(lists.length >= 10, `${lists.length} lists: ${lists.join(' ')}`)
  // Filters naming A's things select among B's own.
  const filtered = [`/v1/jobs?tag=${encodeURIComponent('env=a')}`, `/v1/audit-log?actor=${encodeURIComponent(`api_key:${a.keyId}`)}`, `/scrapes?q=${encodeURIComponent(site.origin)}`]
  for (const path of [...lists, ...filtered]) {
    const answer = await svc.api('GET', path, asB(path))
    t.equal(answer.status, 200, `B reads ${path}`)
    t.same(idsOfA.filter((id) => answer.text.includes(id)), [], `${path} names nothing of A`)
  }
})

t.test('a hold B places naming A\'s job, artifact or organization is refused as one naming nothing', async (t) => {
  const refs = [['job', RESOURCES_OF_A['jobs/{job_id}']], ['artifact', RESOURCES_OF_A['artifacts/{artifact_id}']], ['org', a.orgId]] as const
  for (const [scope_type, scope_ref] of refs) {
    const taken = await svc.api('POST', '/v1/org/retention-holds', { key: b.key, body: { scope_type, scope_ref, justification: 'b holds a' } })
    const missing = await svc.api('POST', '/v1/org/retention-holds', { key: b.key, body: { scope_type, scope_ref: 'missing-0000', justification: 'b holds a' } })
    t.equal(taken.status, 422, `${scope_type}: ${taken.text.slice(0, 200)}`)
    t.same([taken.status, codeOf(taken.body)], [missing.status, codeOf(missing.body)], `${scope_type}: as for a missing one`)
  }
})

t.test('every method of every path naming a resource of A answers B as for a missing one, and changes nothing of A', async (t) => {
  const reads = privatePaths.filter((path) => doc.paths[path]!.get && !LINK_ROUTES[path])
  const readAll = async () => Promise.all(reads.map(async (path) => {
    const answer = await svc.api('GET', withIds(path, ofA), asA(path))
    return { path, status: answer.status, body: withoutSignedLinks(answer.body) }
  }))
  const before = await readAll()
  for (const read of before) t.equal(read.status, 200, `A reads ${read.path}`)
  const logBefore = await readLog()
  const position = logBefore.at(-1)!.position

  let calls = 0
  for (const path of privatePaths) {
    for (const method of METHODS.filter((m) => doc.paths[path]![m])) {
      const operation = doc.paths[path]![method]
      const label = `${method.toUpperCase()} ${path}`
      const schema = operation.requestBody?.content?.['application/json']?.schema
      const body = BODIES[label] ?? (schema ? {} : undefined)
      if (schema?.required?.length && !BODIES[label]) t.fail(`${label}: add a valid body to BODIES`)
      const link = LINK_ROUTES[path]
      if (!operation.security && !link) { t.fail(`${label} has no security: add it to LINK_ROUTES`); continue }
      const target = (ids: (param: string) => string) => link ? link(withIds(path, ids)) : withIds(path, ids)
      const credentials = link ? {} : asB(path)
      for (const query of ['', ...(QUERIES[label] ?? [])]) {
        const send = (ids: (param: string) => string) => svc.api(method.toUpperCase(), `${target(ids)}${query}`, { ...credentials, ...(body !== undefined ? { body } : {}) })
        for (const mix of mixes(path)) {
          const taken = await send(mix.ids)
          const missing = await send(mix.missing)
          calls += 1
          t.equal(taken.status, link ? missing.status : 404, `${label}${query}${mix.label}: B is answered ${taken.status} ${taken.text.slice(0, 200)}`)
          t.equal(codeOf(taken.body), codeOf(missing.body), `${label}${query}${mix.label}: the same code as for a missing resource`)
        }
      }
    }
  }
  t.ok(calls >= 30, `${calls} calls`)

  const after = await readAll()
  t.same(after, before, 'A reads every resource as before')
  const log = await readLog()
  const ofAStreams = streamsOfA(logBefore)
  const appended = log.filter((e) => e.position > position && (e.org_id === a.orgId || ofAStreams.has(e.stream)))
  t.same(appended.map((e) => `${e.stream} ${e.type}`), [], 'nothing was appended to A\'s streams')
})

t.test('A\'s job still running answers B as a missing one, and runs on', async (t) => {
  const running = await ok(svc.api('POST', '/v1/jobs', { key: a.key, body: { job_type: 'light', target_url: `${site.origin}/slow?ms=3000` } }), 202)
  const paths = idPaths.filter((path) => path.startsWith('/v1/jobs/{job_id}') && !path.includes('{artifact_id}'))
  for (const path of paths) {
    for (const method of METHODS.filter((m) => doc.paths[path]![m])) {
      for (const query of ['', ...(QUERIES[`${method.toUpperCase()} ${path}`] ?? [])]) {
        const answer = await svc.api(method.toUpperCase(), `${withIds(path, () => running.job_id)}${query}`, { key: b.key })
        t.equal(answer.status, 404, `${method.toUpperCase()} ${path}${query}: ${answer.text.slice(0, 200)}`)
      }
    }
  }
  t.equal((await svc.waitForResult(a.key, running.job_id)).body.status, 'succeeded', 'A\'s job ends as it would have')
})
