import t from 'tap'
import { startFixtureSite } from '../fixtures/site.js'
import { runCli, spawnService } from '../helpers/process.js'
import { tempDataDir, waitFor } from '../helpers/service.js'

/**
 * One id joins a request's log lines and every event it causes, down to the fetcher's: the caller's X-Correlation-Id,
 * or a new one the log line tells. Checked on the service as its own process, from its JSON log on stdout.
 */
const site = await startFixtureSite()
const env = { DATA_DIR: tempDataDir('sw-correlation'), SSRF_ALLOWLIST: `127.0.0.1:${site.port}` }
const { api_key: key } = await runCli(env, ['org', 'create', '--name', 'Trace Co', '--plan', 'pro'])
const service = await spawnService({ ...env, LOG_LEVEL: 'info' })
t.teardown(async () => { service.child.kill('SIGTERM'); await service.exited; await site.close() })

interface LogLine { readonly msg?: string; readonly correlation_id?: string; readonly req?: { method: string; url: string }; readonly res?: { statusCode: number } }
interface AuditEntry { readonly type: string; readonly stream: string; readonly actor: string; readonly correlation_id: string }
const logLines = (): LogLine[] => service.stdout().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as LogLine)
const api = async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) => {
  const answer = await fetch(`${service.base}${path}`, {
    method, headers: { 'x-api-key': key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  return { status: answer.status, body: await answer.json() as any }
}
const submit = (headers: Record<string, string>) => api('POST', '/v1/jobs', headers, { job_type: 'light', target_url: `${site.origin}/page` })
const finished = (jobId: string) => waitFor(async () => ['succeeded', 'failed'].includes((await api('GET', `/v1/jobs/${jobId}`)).body.status), 30_000)
const auditOf = async (correlationId: string) => {
  const page = await api('GET', '/v1/audit-log?per_page=100')
  return (page.body.items as AuditEntry[]).filter((entry) => entry.correlation_id === correlationId)
}

await waitFor(async () => (await api('GET', '/v1/jobs')).status === 200, 20_000)

t.test('a request without X-Correlation-Id: the id in its log lines is the one on the job\'s events, the fetcher\'s included', async (t) => {
  const before = logLines().length
  const submitted = await submit({})
  t.equal(submitted.status, 202)
  const jobId: string = submitted.body.job_id
  await finished(jobId)
  const lines = logLines().slice(before)
  const incoming = lines.filter((line) => line.msg === 'incoming request' && line.req?.method === 'POST' && line.req.url === '/v1/jobs')
  t.equal(incoming.length, 1, 'one request logged')
  const id = incoming[0]!.correlation_id!
  t.match(id, /^[0-9a-f-]{36}$/, 'a new UUID')
  const completed = lines.find((line) => line.msg === 'request completed' && line.correlation_id === id)
  t.equal(completed?.res?.statusCode, 202, 'the answer\'s log line carries the same id')
  await waitFor(async () => (await auditOf(id)).some((entry) => entry.type === 'JobSucceeded'), 20_000)
  const events = await auditOf(id)
  t.ok(events.length >= 3, `${events.length} events carry it`)
  t.ok(events.every((entry) => entry.stream === `job-${jobId}`), 'all of them this job\'s')
  t.same(new Set(events.map((entry) => entry.type)).has('JobRequested'), true, 'the request\'s own event')
  t.ok(events.some((entry) => entry.type === 'JobSucceeded' && entry.actor.startsWith('fetcher:')), 'and the fetcher\'s outcome')
})

t.test('a caller\'s X-Correlation-Id is used for the log lines and the events alike', async (t) => {
  const before = logLines().length
  const submitted = await submit({ 'x-correlation-id': 'trace-e2e-42' })
  t.equal(submitted.status, 202)
  await finished(submitted.body.job_id)
  const lines = logLines().slice(before).filter((line) => line.correlation_id === 'trace-e2e-42')
  t.same(lines.map((line) => line.msg), ['incoming request', 'request completed'])
  await waitFor(async () => (await auditOf('trace-e2e-42')).some((entry) => entry.type === 'JobSucceeded'), 20_000)
  t.ok((await auditOf('trace-e2e-42')).every((entry) => entry.stream === `job-${submitted.body.job_id}`))
  t.notOk(service.stderr().includes('FSTDEP'), 'no fastify deprecation warning')
})
