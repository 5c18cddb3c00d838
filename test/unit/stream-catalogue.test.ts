import t from 'tap'
import { Effect, Layer } from 'effect'
import { decodeStored, encodeEvent } from '../../domain/events.js'
import { JobFailed, JobRequested, JobStarted, JobSucceeded } from '../../domain/job/events.js'
import { sealSpecSecrets } from '../../domain/job/spec-secrets.js'
import { validateJobSpec } from '../../domain/job/spec.js'
import { SecretBox } from '../../domain/secret-box.js'
import { CATEGORIES, STREAMS, streamCategory } from '../../domain/streams.js'
import { KNOWN_CATEGORIES, topicFor } from '../../infra/kafka/topics.js'
import { makeMemoryDocumentStore } from '../../infra/memory/document-store.js'
import { acceptsJobEndsFrom } from '../../processors/job-ends-from.js'
import { defineProcessor, subscriptionOf } from '../../processors/processor.js'
import { JOBS, jobsProjection } from '../../projections/jobs.js'
import { DocumentStore } from '../../ports/document-store.js'
import type { RecordedEvent } from '../../ports/event-store.js'

const specOf = (input: Record<string, unknown>) => {
  const checked = validateJobSpec(input, { allowlist: new Set(['proxy.test:8080']), isTimeZone: () => true })
  if (!checked.ok) throw new Error(`invalid test spec: ${JSON.stringify(checked.errors)}`)
  return checked.spec
}
const NOW = '2026-11-23T00:00:00.000Z'
let position = 0
const recorded = (stream: string, type: string, data: Record<string, unknown>): RecordedEvent => ({
  event_id: `e${++position}`, type, data, stream, revision: 0, position, org_id: 'o1', occurred_at: NOW,
  metadata: { correlation_id: 'c1', causation_id: null, actor: 'test' },
})
const stored = (event: JobRequested | JobStarted | JobSucceeded | JobFailed) => {
  const { type, data } = encodeEvent(event)
  // Through JSON, as every store keeps it.
  return recorded(STREAMS.job.stream(event.job_id), type, JSON.parse(JSON.stringify(data)))
}

t.test('stream names and Kafka topics derive from the catalogue', async (t) => {
  t.same([...CATEGORIES], ['job', 'org', 'user', 'email', 'monitor', 'monitor-quota', 'scrape', 'webhook-endpoint', 'webhook-delivery', 'webhook-endpoint-quota', 'content-monitor', 'content-monitor-quota', 'retention', 'hold'])
  for (const category of CATEGORIES) {
    const stream = STREAMS[category].stream('0c9d6a58-2f7e-4e61-9d7e-0a1b2c3d4e5f')
    t.equal(streamCategory(stream), category, `${stream} is a ${category} stream`)
  }
  t.equal(streamCategory('job-abc-def'), 'job', 'ids may hold dashes')
  t.equal(streamCategory('contract-1'), 'contract', 'a stream outside the catalogue: what precedes its first dash')
  t.same(KNOWN_CATEGORIES.map((c) => topicFor('scrapeworks', c)), ['scrapeworks.jobs', 'scrapeworks.orgs', 'scrapeworks.users', 'scrapeworks.emails', 'scrapeworks.monitors', 'scrapeworks.monitor-quotas', 'scrapeworks.scrapes', 'scrapeworks.webhook-endpoints', 'scrapeworks.webhook-deliveries', 'scrapeworks.webhook-endpoint-quotas', 'scrapeworks.content-monitors', 'scrapeworks.content-monitor-quotas', 'scrapeworks.retentions', 'scrapeworks.holds'],
    'the topic names of docs/kafka-topics.md')
})

t.test('a recorded JobRequested decodes into the domain event, its spec structurally checked', async (t) => {
  const spec = sealSpecSecrets(specOf({
    job_type: 'stealth', target_url: 'https://example.com/', tags: ['a'], proxy: { server: 'http://proxy.test:8080', username: 'u', password: 'p4ss' },
    extraction: { hooks: [{ hook_id: 'title', type: 'css', selector: 'h1' }] }, actions: [{ type: 'click', selector: '#go' }],
  }), new SecretBox('s'.repeat(32)))
  t.ok(SecretBox.isSealed(spec.proxy!.password!), 'the proxy password is sealed before it is recorded')
  const event = new JobRequested({ origin: { _tag: 'api' }, job_id: 'j1', org_id: 'o1', api_key_id: null, spec, credit_weight: 30, requested_at: NOW })
  const decoded = decodeStored(['job'], stored(event))
  t.ok(decoded.ok)
  if (decoded.ok) {
    t.equal(decoded.event._tag, 'JobRequested')
    t.same(decoded.event, event, 'the same event as was recorded, sealed password included')
  }
})

t.test('events this version cannot read answer why, without the values', async (t) => {
  const started = stored(new JobStarted({ job_id: 'j1', attempt: 1, worker_id: 'w', started_at: NOW }))
  const unknown = decodeStored(['job'], { ...started, type: 'JobTeleported' })
  t.match(unknown, { ok: false, reason: /unknown event type JobTeleported/ })
  const mismatch = decodeStored(['job'], { ...started, data: { ...started.data, attempt: 'secret-value' } })
  t.match(mismatch, { ok: false, reason: /JobStarted does not match its schema at attempt/ })
  t.notMatch(mismatch.ok ? '' : mismatch.reason, /secret-value/, 'values never enter the reason')
  const badSpec = stored(new JobRequested({ origin: { _tag: 'api' }, job_id: 'j2', org_id: 'o1', api_key_id: null, spec: specOf({ job_type: 'light', target_url: 'https://example.com/' }), credit_weight: 1, requested_at: NOW }))
  const spec = { ...(badSpec.data.spec as object), job_type: 'warp' }
  t.match(decodeStored(['job'], { ...badSpec, data: { ...badSpec.data, spec } }), { ok: false, reason: /at spec\.job_type/ })
  t.match(decodeStored(['org'], started), { ok: false, reason: /not of the categories org/ })
})

t.test('a projection skips an event it cannot decode and goes on with the next', async (t) => {
  const docs = makeMemoryDocumentStore()
  const apply = (event: RecordedEvent) => Effect.runPromise(jobsProjection.apply(event).pipe(Effect.provide(Layer.succeed(DocumentStore, docs))))
  const requested = stored(new JobRequested({ origin: { _tag: 'api' }, job_id: 'j3', org_id: 'o1', api_key_id: null, spec: specOf({ job_type: 'light', target_url: 'https://example.com/' }), credit_weight: 1, requested_at: NOW }))
  await apply({ ...requested, type: 'JobTeleported' })
  t.equal(await Effect.runPromise(docs.get(JOBS.name, 'j3')), null, 'nothing written for an unreadable event')
  await apply(requested)
  t.match(await Effect.runPromise(docs.get(JOBS.name, 'j3')), { status: 'queued', job_type: 'light', _position: requested.position })
})

t.test('a processor that says which events it accepts is handed only those, and its subscription asks for them alone', async (t) => {
  const seen: string[] = []
  const processor = defineProcessor({
    name: 'processor.accepting', categories: ['job'], types: ['JobStarted'], log: () => {},
    accepts: (recorded) => recorded.data.attempt === 1,
    handle: async (event) => { seen.push(`${event.job_id}#${event.attempt}`) },
  })
  const first = stored(new JobStarted({ job_id: 'j6', attempt: 1, worker_id: 'w', started_at: NOW }))
  const retried = stored(new JobStarted({ job_id: 'j6', attempt: 2, worker_id: 'w', started_at: NOW }))
  const subscription = subscriptionOf(processor, 1)
  t.same([subscription.accepts?.(first), subscription.accepts?.(retried)], [true, false], 'the subscription passes over what it does not accept')
  await processor.handle(first)
  await processor.handle(retried)
  t.same(seen, ['j6#1'], 'and a log that hands it over anyway reaches no handler')
})

t.test('acceptsJobEndsFrom accepts the ends of jobs that may be of its origin, from the recorded event, and every other type', async (t) => {
  const accepts = acceptsJobEndsFrom('monitor_run')
  const end = (origins?: ('monitor_run' | 'scrape')[]) => stored(new JobSucceeded({ job_id: 'j7', manifest: {}, artifacts: [], finished_at: NOW, ...(origins ? { origins } : {}) }))
  t.equal(accepts(end(['monitor_run'])), true, 'an end of a monitor run')
  t.equal(accepts(end(['scrape'])), false, 'an end of another job')
  t.equal(accepts(end([])), false, 'an end of a job submitted for nothing')
  t.equal(accepts(end()), true, 'an end recorded before origins were (it may be)')
  t.equal(accepts(stored(new JobFailed({ job_id: 'j7', failure_reason: 'timeout', message: 'slow', finished_at: NOW, origins: [] }))), false, 'a failed end too')
  t.equal(accepts(stored(new JobStarted({ job_id: 'j7', attempt: 1, worker_id: 'w', started_at: NOW }))), true, 'another type')
})

t.test('a processor handles the decoded events of its types, ignores other types and logs the ones it cannot decode', async (t) => {
  const seen: string[] = []
  const logged: string[] = []
  const processor = defineProcessor({
    name: 'processor.test', categories: ['job'], types: ['JobStarted'], log: (message) => logged.push(message),
    handle: async (event, envelope) => { seen.push(`${event._tag}:${event.job_id}@${envelope.position}`) },
  })
  t.same(processor.types, ['JobStarted'], 'the types it declares are what its subscription asks for')
  const started = stored(new JobStarted({ job_id: 'j4', attempt: 2, worker_id: 'w', started_at: NOW }))
  const requested = stored(new JobRequested({ origin: { _tag: 'api' }, job_id: 'j5', org_id: 'o1', api_key_id: null, spec: specOf({ job_type: 'light', target_url: 'https://example.com/' }), credit_weight: 1, requested_at: NOW }))
  await processor.handle(started)
  await processor.handle(requested)
  await processor.handle({ ...started, type: 'JobTeleported' })
  await processor.handle({ ...started, data: { ...started.data, attempt: 'second' } })
  t.same(seen, [`JobStarted:j4@${started.position}`], 'only the listed type reaches the handler')
  t.match(logged, [/processor\.test skips event .* JobStarted does not match its schema at attempt/])
  t.equal(logged.length, 1, 'a type it does not list is ignored without a word, known or not')
  defineProcessor({
    name: 'processor.typed', categories: ['job'], types: ['JobStarted'], log: () => {},
    handle: async (event) => {
      switch (event._tag) {
        case 'JobStarted': return
        // @ts-expect-error a case for a type the processor does not declare does not type-check
        case 'JobRequested': return
      }
    },
  })
})
