import t from 'tap'
import { Effect, Either } from 'effect'
import { submitAdmittedJob, type SubmitAdmittedJob } from '../../commands/admit-job.js'
import { validateJobSpec } from '../../domain/job/spec.js'
import { startService } from '../helpers/service.js'

// No fetcher: admitted jobs stay queued, so they keep counting against the plan's concurrency.
const svc = await startService({
  roles: ['api', 'projector'],
  allowlist: ['allowed.example.test:80'],
  dns: {
    'inward.example.test': ['127.0.0.1', '::1'],
    'metadata.example.test': ['169.254.169.254'],
    'mixed.example.test': ['10.0.0.1', '93.184.216.34'],
    'allowed.example.test': ['127.0.0.1'],
    'public.example.test': ['93.184.216.34'],
  },
})
t.teardown(() => svc.close())

const specOf = (body: Record<string, unknown>) => {
  const checked = validateJobSpec({ job_type: 'light', ...body }, { allowlist: svc.config.ssrfAllowlist, isTimeZone: () => true })
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors))
  return checked.spec
}

/** A job the service submits itself (as a monitor run would): no key, only the plan's limits. */
const systemJob = (orgId: string, body: Record<string, unknown>, extra: Partial<SubmitAdmittedJob> = {}): SubmitAdmittedJob => ({
  org_id: orgId, plan: 'free', key: null, enforcement: 'block', spec: specOf(body), origin: { _tag: 'api' }, allowlist: svc.config.ssrfAllowlist,
  now: new Date(), metadata: { correlation_id: 'test', causation_id: null, actor: 'scheduler' }, ...extra,
})
const admit = (input: SubmitAdmittedJob) => svc.run(Effect.either(submitAdmittedJob(input)))

t.test('the command admits system jobs up to the plan, concurrently, and rejects the rest with every breach', async (t) => {
  const { org_id } = await svc.createOrg('free')
  const outcomes = await Promise.all([1, 2, 3, 4, 5].map((n) => admit(systemJob(org_id, { target_url: `https://public.example.test/${n}` }))))
  const created = outcomes.filter((o) => Either.isRight(o) && o.right._tag === 'Created')
  const rejected = outcomes.flatMap((o) => (Either.isLeft(o) ? [o.left] : []))
  t.equal(created.length, 2, 'the free plan runs two jobs at once')
  t.equal(rejected.length, 3)
  for (const error of rejected) {
    t.equal(error._tag, 'AdmissionRejected')
    if (error._tag !== 'AdmissionRejected') continue
    t.equal(error.code, 'plan_limit_concurrent_jobs')
    t.same(error.breaches.map((b) => b.code), ['plan_limit_concurrent_jobs'])
    t.equal(error.limit, 2)
    t.ok(error.retryAfterSeconds >= 1)
  }
  const observed = await admit(systemJob(org_id, { target_url: 'https://public.example.test/observed' }, { enforcement: 'observe' }))
  t.ok(Either.isRight(observed) && observed.right._tag === 'Created' && observed.right.observed.some((b) => b.code === 'plan_limit_concurrent_jobs'), 'observe mode admits and reports')
})

t.test('an idempotency token replays the original job with its log position', async (t) => {
  const { org_id } = await svc.createOrg('pro')
  const input = systemJob(org_id, { target_url: 'https://public.example.test/', idempotency_token: 'run-1' }, { plan: 'pro' })
  const [first, second] = await Promise.all([admit(input), admit(input)])
  const outcomes = [first, second].map((o) => Either.getOrThrow(o))
  t.same(outcomes.map((o) => o._tag).sort(), ['Created', 'Replayed'])
  t.equal(outcomes[0]!.job_id, outcomes[1]!.job_id)
  t.equal(outcomes[0]!.position, outcomes[1]!.position)
})

t.test('a host name that resolves only to forbidden addresses is refused at submission', async (t) => {
  const { org_id, key } = await svc.createOrg('pro')
  for (const host of ['inward.example.test', 'metadata.example.test']) {
    const answer = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `http://${host}/` } })
    t.equal(answer.status, 422, host)
    t.equal(answer.body.error.details[0].code, 'unsafe_target_url')
    t.equal(answer.body.error.details[0].field, 'target_url')
  }
  const command = await admit(systemJob(org_id, { target_url: 'http://inward.example.test/' }, { plan: 'pro' }))
  t.ok(Either.isLeft(command) && command.left._tag === 'ValidationFailed', 'the command refuses it too')
  for (const host of ['mixed.example.test', 'allowed.example.test', 'unresolvable.example.test']) {
    const answer = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `http://${host}/` } })
    t.equal(answer.status, 202, `${host}: ${answer.text}`)
  }
  const list = await svc.api('GET', '/v1/jobs', { key })
  t.same(list.body.items.map((j: any) => new URL(j.target_url).hostname).sort(), ['allowed.example.test', 'mixed.example.test', 'unresolvable.example.test'])
})

t.test('events carry the caller\'s correlation id, or a fresh one', async (t) => {
  const { key } = await svc.createOrg('pro')
  const submit = (headers: Record<string, string>) => svc.api('POST', '/v1/jobs', { key, headers, body: { job_type: 'light', target_url: 'https://public.example.test/' } })
  const audit = async () => (await svc.api('GET', '/v1/audit-log', { key })).body.items
  t.equal((await submit({ 'x-correlation-id': 'trace-42' })).status, 202)
  t.equal((await submit({ 'x-correlation-id': 'not valid\u00e9 id' })).status, 202)
  let entries: any[] = []
  for (let i = 0; i < 100 && entries.filter((e) => e.type === 'JobRequested').length < 2; i++) {
    entries = await audit()
    await new Promise((r) => setTimeout(r, 20))
  }
  const ids = entries.filter((e) => e.type === 'JobRequested').map((e) => e.correlation_id)
  t.ok(ids.includes('trace-42'), JSON.stringify(ids))
  t.ok(ids.some((id: string) => /^[0-9a-f-]{36}$/.test(id)), 'an invalid header gets a UUID')
})

