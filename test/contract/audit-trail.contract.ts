import { randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import type { Test } from 'tap'
import { DEFAULT_KEY_LIMITS } from '../../commands/orgs.js'
import { encodeEvent } from '../../domain/events.js'
import { JobRequested, JobStarted } from '../../domain/job/events.js'
import { validateJobSpec } from '../../domain/job/spec.js'
import { parseAllowlist } from '../../domain/address-policy.js'
import { ApiKeyCreated, OrgCreated } from '../../domain/org/events.js'
import { STREAMS, type DomainEvent } from '../../domain/streams.js'
import { EmailClaimed } from '../../domain/user/events.js'
import { makeMemoryEventStore } from '../../infra/memory/event-store.js'
import { auditProjection } from '../../projections/audit.js'
import { auditTrailOfReadModel } from '../../projections/audit-queries.js'
import type { AuditEntry, AuditTrailService } from '../../ports/audit-trail.js'
import { DocumentStore, type DocumentStoreService } from '../../ports/document-store.js'
import type { EventStoreService, NewEvent } from '../../ports/event-store.js'

/** Events appended to one stream, in order. */
export interface StreamAppend {
  readonly stream: string
  readonly events: readonly NewEvent[]
}

/**
 * The AuditTrail port's contract: the adapter reading the event log (embedded) and the one reading the audit read
 * model (scale-out) must answer every query the same. `record` appends the streams in order (positions follow that
 * order) and answers the adapter over them.
 */
export interface AuditTrailFixture {
  readonly record: (appends: readonly StreamAppend[]) => Promise<AuditTrailService>
  readonly cleanup: () => Promise<void>
}

/** Appends the streams in order to `store`. */
export const appendAll = (store: EventStoreService, appended: readonly StreamAppend[]) =>
  Effect.runPromise(Effect.forEach(appended, ({ stream, events }) => store.append(stream, events, 'no_stream'), { discard: true }))

/**
 * The read-model adapter's recording: the streams appended to a log, and every event of it applied by the audit
 * projection to `docs`, as the projector does.
 */
export const recordIntoReadModel = (docs: DocumentStoreService) => async (appended: readonly StreamAppend[]) => {
  const log = makeMemoryEventStore()
  await appendAll(log, appended)
  const events = await Effect.runPromise(log.readAll(0, 1000))
  await Effect.runPromise(Effect.forEach(events, auditProjection.apply, { discard: true }).pipe(Effect.provideService(DocumentStore, docs)))
  return Effect.runSync(auditTrailOfReadModel.pipe(Effect.provideService(DocumentStore, docs)))
}

const ORG_A = randomUUID()
const ORG_B = randomUUID()
const KEY = randomUUID()
const JOB = randomUUID()
const OTHER_JOB = randomUUID()

const checked = validateJobSpec({ job_type: 'light', target_url: 'https://example.com/', tags: ['audit'] }, { allowlist: parseAllowlist(''), isTimeZone: () => true })
if (!checked.ok) throw new Error('the contract\'s job spec is invalid')
const spec = checked.spec

const stored = (orgId: string, event: DomainEvent, occurredAt: string, actor: string): NewEvent => ({
  event_id: randomUUID(), ...encodeEvent(event), org_id: orgId, occurred_at: occurredAt,
  metadata: { correlation_id: `corr-${occurredAt}`, causation_id: null, actor },
})

/** Organization A: created, a key, a job requested and started; B: created and its own job; an e-mail claim (not audited). */
const appends: readonly StreamAppend[] = [
  { stream: STREAMS.org.stream(ORG_A), events: [
    stored(ORG_A, new OrgCreated({ org_id: ORG_A, name: 'A', plan: 'pro', created_at: '2030-01-01T00:00:00.000Z' }), '2030-01-01T00:00:00.000Z', 'cli'),
    stored(ORG_A, new ApiKeyCreated({
      key_id: KEY, org_id: ORG_A, name: 'ci', key_hash: 'h'.repeat(64), key_prefix: 'sk_test', scopes: ['jobs.create'],
      limits: DEFAULT_KEY_LIMITS, expires_at: null, created_at: '2030-01-02T00:00:00.000Z',
    }), '2030-01-02T00:00:00.000Z', 'cli'),
  ] },
  { stream: STREAMS.org.stream(ORG_B), events: [
    stored(ORG_B, new OrgCreated({ org_id: ORG_B, name: 'B', plan: 'free', created_at: '2030-01-02T12:00:00.000Z' }), '2030-01-02T12:00:00.000Z', 'cli'),
  ] },
  { stream: STREAMS.email.stream(randomUUID()), events: [
    stored(ORG_A, new EmailClaimed({ email_hash: 'e'.repeat(64), user_id: randomUUID(), claimed_at: '2030-01-02T18:00:00.000Z' }), '2030-01-02T18:00:00.000Z', 'cli'),
  ] },
  { stream: STREAMS.job.stream(JOB), events: [
    stored(ORG_A, new JobRequested({ origin: { _tag: 'api' }, job_id: JOB, org_id: ORG_A, api_key_id: KEY, spec, credit_weight: 1, requested_at: '2030-01-03T00:00:00.000Z' }), '2030-01-03T00:00:00.000Z', `api_key:${KEY}`),
    stored(ORG_A, new JobStarted({ job_id: JOB, attempt: 1, worker_id: 'w1', started_at: '2030-01-04T00:00:00.000Z' }), '2030-01-04T00:00:00.000Z', 'fetcher'),
  ] },
  { stream: STREAMS.job.stream(OTHER_JOB), events: [
    stored(ORG_B, new JobRequested({ origin: { _tag: 'api' }, job_id: OTHER_JOB, org_id: ORG_B, api_key_id: KEY, spec, credit_weight: 1, requested_at: '2030-01-05T00:00:00.000Z' }), '2030-01-05T00:00:00.000Z', `api_key:${KEY}`),
  ] },
]

const types = (entries: readonly AuditEntry[]) => entries.map((entry) => entry.type)

export const auditTrailContract = (t: Test, name: string, make: () => Promise<AuditTrailFixture>) =>
  t.test(`AuditTrail contract: ${name}`, async (t) => {
    const fixture = await make()
    t.teardown(fixture.cleanup)
    const trail = await fixture.record(appends)
    const run = <A>(effect: Effect.Effect<A, unknown>) => Effect.runPromise(effect)
    const all = await run(trail.page(ORG_A, 1, 100, {}))

    t.test('a page: the organization\'s entries of audited streams, newest first, with how many there are', async (t) => {
      t.same(types(all.items), ['JobStarted', 'JobRequested', 'ApiKeyCreated', 'OrgCreated'], 'newest first; no e-mail claim, nothing of B')
      t.equal(all.total, 4)
      const positions = all.items.map((entry) => entry.position)
      t.same(positions, [...positions].sort((a, b) => b - a), 'by position, descending')
      const second = await run(trail.page(ORG_A, 2, 3, {}))
      t.same(types(second.items), ['OrgCreated'], 'page 2 of 3 per page')
      t.equal(second.total, 4, 'the total counts every page')
      t.same((await run(trail.page(ORG_A, 3, 3, {}))).items, [], 'past the end: no entries')
    })

    t.test('an entry: event id, position, type, stream, time, actor, correlation id and the event\'s fields', async (t) => {
      const created = all.items.find((entry) => entry.type === 'OrgCreated')!
      t.same(created, {
        event_id: appends[0]!.events[0]!.event_id, position: created.position, type: 'OrgCreated', stream: STREAMS.org.stream(ORG_A),
        occurred_at: '2030-01-01T00:00:00.000Z', actor: 'cli', correlation_id: 'corr-2030-01-01T00:00:00.000Z',
        detail: { org_id: ORG_A, name: 'A', plan: 'pro', created_at: '2030-01-01T00:00:00.000Z' },
      })
      t.same(Object.keys(created), ['event_id', 'position', 'type', 'stream', 'occurred_at', 'actor', 'correlation_id', 'detail'], 'in this order')
      const key = all.items.find((entry) => entry.type === 'ApiKeyCreated')!
      t.notOk('key_hash' in key.detail, 'no secret hash')
      t.equal(key.detail.key_id, KEY)
      const requested = all.items.find((entry) => entry.type === 'JobRequested')!
      t.notOk('spec' in requested.detail, 'no job spec (it may hold secrets)')
      t.same(requested.detail, { job_id: JOB, org_id: ORG_A, api_key_id: KEY, credit_weight: 1, requested_at: '2030-01-03T00:00:00.000Z', origin: { _tag: 'api' } })
    })

    t.test('another organization sees its own entries only', async (t) => {
      const other = await run(trail.page(ORG_B, 1, 100, {}))
      t.same(types(other.items), ['JobRequested', 'OrgCreated'])
      t.ok(other.items.every((entry) => entry.detail.org_id === ORG_B), 'only B\'s')
      t.equal(other.total, 2)
      t.same(await run(trail.page(randomUUID(), 1, 100, {})), { items: [], total: 0 }, 'an unknown organization has none')
    })

    t.test('filters: type, actor and an inclusive time range', async (t) => {
      const byType = await run(trail.page(ORG_A, 1, 100, { type: 'JobRequested' }))
      t.same([types(byType.items), byType.total], [['JobRequested'], 1])
      const byActor = await run(trail.page(ORG_A, 1, 100, { actor: 'cli' }))
      t.same([types(byActor.items), byActor.total], [['ApiKeyCreated', 'OrgCreated'], 2])
      const range = await run(trail.page(ORG_A, 1, 100, { from: '2030-01-02T00:00:00.000Z', to: '2030-01-03T00:00:00.000Z' }))
      t.same([types(range.items), range.total], [['JobRequested', 'ApiKeyCreated'], 2], 'both ends included')
      const none = await run(trail.page(ORG_A, 1, 100, { type: 'EmailClaimed' }))
      t.same(none, { items: [], total: 0 }, 'a type of a stream the audit trail leaves out')
      t.same(types((await run(trail.page(ORG_A, 1, 100, { actor: 'cli', type: 'OrgCreated' }))).items), ['OrgCreated'], 'filters combine')
    })
  })
