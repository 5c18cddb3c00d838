import { Effect, Either } from 'effect'
import t from 'tap'
import { deterministicId, handle, type CommandContext } from '../../commands/handle.js'
import { submitJob, submitJobNow } from '../../commands/jobs.js'
import { decodeEvent } from '../../domain/events.js'
import { STREAMS, type DomainEvent } from '../../domain/streams.js'
import { jobDecider, type JobCommand } from '../../domain/job/decider.js'
import { JobFailed, JobRequested, JobStarted, JobSucceeded } from '../../domain/job/events.js'
import { validateJobSpec, type JobSpec } from '../../domain/job/spec.js'
import { makeMemoryEventStore } from '../../infra/memory/event-store.js'
import type { EventStoreService, NewEvent } from '../../ports/event-store.js'
import { memoryServices, newEvents, TEST_METADATA } from '../helpers/memory-services.js'

const NOW = '2024-05-01T12:00:00.000Z'
const LATER = '2024-05-01T12:05:00.000Z'
const JOB = 'j1'
const STREAM = STREAMS.job.stream(JOB)
const ORG = 'o1'
const ctx: CommandContext = { org_id: ORG, metadata: TEST_METADATA }

const specFor = (input: Record<string, unknown>): JobSpec => {
  const result = validateJobSpec(input, { allowlist: new Set(), isTimeZone: () => true })
  if (!result.ok) throw new Error(`invalid test spec: ${JSON.stringify(result.errors)}`)
  return result.spec
}
const spec = specFor({ job_type: 'light', target_url: 'https://example.com/page' })
const requested = new JobRequested({ origin: { _tag: 'api' }, job_id: JOB, org_id: ORG, api_key_id: 'k1', spec, credit_weight: 1, requested_at: NOW })
const startedBy = (worker: string, attempt: number) => new JobStarted({ job_id: JOB, attempt, worker_id: worker, started_at: NOW })
const start: JobCommand = { _tag: 'StartJob', job_id: JOB, worker_id: 'w1', now: NOW }
const succeed: JobCommand = { _tag: 'SucceedJob', job_id: JOB, manifest: { http_status: 200 }, artifacts: [], now: LATER }

/**
 * Another writer: `racing(store)` is the store through which, on the handler's first `times` appends, the other
 * writer appends `interference` to the stream between the handler's read and its append. Counts the handler's attempts.
 */
const concurrentWriter = (interference: () => NewEvent[], times: number) => {
  let left = times
  const counted = { attempts: 0 }
  const racing = (store: EventStoreService): EventStoreService => ({
    ...store,
    append: (stream, events, expected) => Effect.suspend(() => {
      counted.attempts += 1
      if (left-- <= 0) return store.append(stream, events, expected)
      return Effect.zipRight(store.append(stream, interference(), 'any'), store.append(stream, events, expected))
    }),
    ...(store.appendNow ? {
      appendNow: (stream, events, expected) => {
        counted.attempts += 1
        if (left-- > 0) store.appendNow!(stream, interference(), 'any')
        return store.appendNow!(stream, events, expected)
      },
    } satisfies Partial<EventStoreService> : {}),
  })
  return { racing, counted }
}

/**
 * A stream holding `history`, the services around it (the event store as `racing` makes it, once the history is
 * recorded), and the stream's events decoded after the command ran.
 */
const givenIn = async (synchronous: boolean, history: readonly DomainEvent[], racing: (store: EventStoreService) => EventStoreService = (store) => store) => {
  const recordedHistory = makeMemoryEventStore()
  if (history.length > 0) await Effect.runPromise(recordedHistory.append(STREAM, newEvents(ORG, history), 'no_stream'))
  // Without its synchronous entry points, the store is one whose commands run as effects (EventStoreDB's kind).
  const store = racing(synchronous ? recordedHistory : { ...recordedHistory, appendNow: undefined, readStreamNow: undefined })
  const services = memoryServices(store)
  const recorded = () => services.run(store.readStream(STREAM))
  const decoded = async () => (await recorded()).map((r) => decodeEvent(r.type, r.data))
  return { ...services, recorded, decoded }
}

// Every case holds for a store that answers synchronously (handled in one step) and for one that answers with effects.
for (const synchronous of [true, false]) {
  t.test(synchronous ? 'on a store with synchronous entry points' : 'on a store answering with effects only', async (t) => {
    const given = (history: readonly DomainEvent[], racing?: (store: EventStoreService) => EventStoreService) => givenIn(synchronous, history, racing)

    t.test('given a stream, a command appends the decided events after its head', async (t) => {
      const { run, recorded, decoded } = await given([requested])
      const handled = await run(handle(jobDecider, STREAM, start, ctx))
      t.same(handled.events, [startedBy('w1', 1)], 'answers the decided events')
      t.same(await decoded(), [requested, startedBy('w1', 1)], 'the stream holds them after the history')
      const [, appended] = await recorded()
      t.equal(handled.revision, 1)
      t.equal(handled.position, appended!.position, 'answers the log position of its last event')
      t.match(appended, { org_id: ORG, metadata: TEST_METADATA, occurred_at: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/ }, 'the envelope carries the context')
    })

    t.test('a command on a new stream appends with no_stream', async (t) => {
      const { run, decoded } = await given([])
      await run(handle(jobDecider, STREAM, { _tag: 'RequestJob', origin: { _tag: 'api' }, job_id: JOB, org_id: ORG, api_key_id: 'k1', spec, now: NOW }, ctx))
      t.same(await decoded(), [requested])
    })

    t.test('a rejected command appends nothing and answers the domain error', async (t) => {
      const { attempt, recorded } = await given([])
      const result = await attempt(handle(jobDecider, STREAM, start, ctx))
      t.ok(Either.isLeft(result) && result.left._tag === 'NotFound', 'StartJob on a job that does not exist')
      t.same(await recorded(), [])
    })

    t.test('a conflict re-reads the stream, decides again on the new state and appends', async (t) => {
      const { racing, counted } = concurrentWriter(() => newEvents(ORG, [startedBy('w2', 1)]), 1)
      const { run, decoded } = await given([requested], racing)
      const handled = await run(handle(jobDecider, STREAM, start, ctx))
      t.equal(counted.attempts, 2, 'the first append conflicted, the second went through')
      t.same(handled.events, [startedBy('w1', 2)], 'decided on the state that includes the other writer\'s start')
      t.same(await decoded(), [requested, startedBy('w2', 1), startedBy('w1', 2)])
    })

    t.test('a conflict whose new state refuses the command answers the domain error', async (t) => {
      const failed = new JobFailed({ job_id: JOB, failure_reason: 'timeout', message: 'took too long', finished_at: NOW })
      const { racing } = concurrentWriter(() => newEvents(ORG, [failed]), 1)
      const { attempt, decoded } = await given([requested, startedBy('w1', 1)], racing)
      const result = await attempt(handle(jobDecider, STREAM, succeed, ctx))
      t.ok(Either.isLeft(result), 'fails')
      if (Either.isLeft(result)) t.match(result.left, { _tag: 'StateConflict', code: 'job_finished' })
      t.same(await decoded(), [requested, startedBy('w1', 1), failed], 'the other writer\'s outcome stands alone')
    })

    t.test('after repeated conflicts the handler gives up with the typed conflict', async (t) => {
      let other = 0
      const { racing, counted } = concurrentWriter(() => newEvents(ORG, [startedBy(`other-${++other}`, other)]), Infinity)
      const { attempt, decoded } = await given([requested], racing)
      const result = await attempt(handle(jobDecider, STREAM, start, ctx))
      t.ok(Either.isLeft(result), 'fails')
      if (Either.isLeft(result)) t.match(result.left, { _tag: 'WrongExpectedRevision', stream: STREAM })
      t.equal(counted.attempts, 8, 'tries a bounded number of times')
      const workers = (await decoded()).flatMap((e) => (e._tag === 'JobStarted' ? [e.worker_id] : []))
      t.notOk(workers.includes('w1'), 'nothing of the handler was appended')
      t.equal(workers.length, 8, 'only the other writer\'s starts')
    })

    t.test('an idSeed makes a retried command append nothing new', async (t) => {
      const { run, recorded, decoded } = await given([requested])
      await run(handle(jobDecider, STREAM, start, { ...ctx, idSeed: 'cause-1' }))
      const again = await run(handle(jobDecider, STREAM, start, { ...ctx, idSeed: 'cause-1' }))
      t.same(await decoded(), [requested, startedBy('w1', 1)], 'the second run with the same seed is a no-op')
      t.equal(again.revision, 1, 'and answers the current head')
      t.equal((await recorded())[1]!.event_id, deterministicId(`cause-1:${STREAM}:0`), 'the event id derives from the seed')
      await run(handle(jobDecider, STREAM, start, { ...ctx, idSeed: 'cause-2' }))
      t.same(await decoded(), [requested, startedBy('w1', 1), startedBy('w1', 2)], 'another seed is another command')
    })

    t.test('without an idSeed a repeated command is appended again', async (t) => {
      const { run, decoded } = await given([requested])
      await run(handle(jobDecider, STREAM, start, ctx))
      await run(handle(jobDecider, STREAM, start, ctx))
      t.same(await decoded(), [requested, startedBy('w1', 1), startedBy('w1', 2)])
    })

    t.test('submitJob with an idempotency token records one JobRequested however often it is sent', async (t) => {
      const { run, events } = memoryServices()
      const input = { org_id: ORG, api_key_id: 'k1', origin: { _tag: 'api' } as const, spec: specFor({ job_type: 'light', target_url: 'https://example.com/', idempotency_token: 'tok-1' }), now: new Date('2024-05-01T12:00:00Z'), metadata: TEST_METADATA }
      const [first, second] = await Promise.all([run(submitJob(input)), run(submitJob(input))])
      t.equal(first.job_id, second.job_id, 'one job id for one token')
      t.same([first.created, second.created].sort(), [false, true], 'exactly one submission created it')
      t.same((await run(events.readStream(STREAMS.job.stream(first.job_id)))).map((e) => e.type), ['JobRequested'])
      const other = await run(submitJob({ ...input, spec: specFor({ job_type: 'light', target_url: 'https://example.com/', idempotency_token: 'tok-2' }) }))
      t.not(other.job_id, first.job_id, 'another token is another job')
    })

    t.test('a succeeded job refuses another outcome', async (t) => {
      const succeeded = new JobSucceeded({ job_id: JOB, manifest: { http_status: 200 }, artifacts: [], finished_at: LATER })
      const { attempt, decoded } = await given([requested, startedBy('w1', 1), succeeded])
      const result = await attempt(handle(jobDecider, STREAM, { _tag: 'FailJob', job_id: JOB, failure_reason: 'timeout', message: 'late', now: LATER }, ctx))
      t.ok(Either.isLeft(result) && result.left._tag === 'StateConflict')
      t.equal((await decoded()).length, 3, 'nothing appended')
    })
  })
}

t.test('submitJobNow reads no stream for a job id it draws, and reads one it is given (or derives from a token)', async (t) => {
  const store = makeMemoryEventStore()
  const reads: string[] = []
  const counting = { readStreamNow: (stream: string) => { reads.push(stream); return store.readStreamNow!(stream) }, appendNow: store.appendNow! }
  const input = { org_id: ORG, api_key_id: 'k1', origin: { _tag: 'api' } as const, spec, now: new Date('2024-05-01T12:00:00Z'), metadata: TEST_METADATA }
  const drawn = submitJobNow(counting, input)
  t.ok(drawn.created && drawn.requested !== null, 'the job is requested')
  t.same(reads, [], 'a new random id: its stream is not read')
  t.same(store.readStreamNow!(STREAMS.job.stream(drawn.job_id)).map((e) => e.type), ['JobRequested'])
  const again = (() => { try { return submitJobNow(counting, { ...input, job_id: drawn.job_id }) } catch (error) { return error } })()
  t.equal((again as { _tag?: string })._tag, 'StateConflict', 'a given id of an existing job is refused')
  t.same(reads, [STREAMS.job.stream(drawn.job_id)], 'a given id: its stream is read')
  const tokened = { ...input, spec: specFor({ job_type: 'light', target_url: 'https://example.com/', idempotency_token: 'tok-now' }) }
  t.equal(submitJobNow(counting, tokened).created, true)
  t.same(submitJobNow(counting, tokened).requested, null, 'the same token again: nothing new requested')
  t.equal(reads.length, 3, 'a token\'s id: its stream is read')
})
