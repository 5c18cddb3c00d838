import { createHash } from 'node:crypto'
import { Effect, Either } from 'effect'
import t from 'tap'
import { handle } from '../../commands/handle.js'
import { decodeEvent } from '../../domain/events.js'
import { STREAMS } from '../../domain/streams.js'
import { jobDecider } from '../../domain/job/decider.js'
import { validateJobSpec, type JobType } from '../../domain/job/spec.js'
import { makeManualClock } from '../../infra/clock/manual.js'
import { failure, type Engine, type EngineOutcome, type EngineRequest } from '../../fetchers/engine.js'
import type { RecordedEvent } from '../../ports/event-store.js'
import type { FinishedJob, MetricsService } from '../../ports/metrics.js'
import { makeJobRunner } from '../../processors/job-runner.js'
import { memoryServices, TEST_METADATA } from '../helpers/memory-services.js'

const ORG = 'org-1'
const PAGE = new TextEncoder().encode('<html><body>hello</body></html>')
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
/** The service's clock, far from the wall clock, so a time taken from the wall clock shows. */
const clock = makeManualClock('2024-05-01T12:00:05.000Z')

/** An engine of one tier whose outcome the test chooses; it counts the jobs it was asked to run. */
const fakeEngine = (tier: JobType, outcome: (request: EngineRequest) => Promise<EngineOutcome>) => {
  const runs: string[] = []
  const engine: Engine = {
    tier,
    run: (request) => { runs.push(request.job_id); return outcome(request) },
    close: async () => {},
  }
  return { engine, runs }
}

/**
 * Every test runs twice: with the start and end recorded in effect runs, and at once through the store's synchronous
 * entries (`events` given to the runner).
 */
for (const atOnce of [false, true]) {
  const title = (name: string) => (atOnce ? `${name} (recorded at once)` : name)

  /** In-memory stores, a requested job, and a runner with the given engines; `logged` collects the runner's log lines. */
  const setup = async (engines: Partial<Record<JobType, Engine>>, jobType: JobType = 'light', finished: FinishedJob[] = []) => {
    const services = memoryServices()
    const logged: string[] = []
    const metrics = { jobFinished: (job: FinishedJob) => { finished.push(job) } } as unknown as MetricsService
    const runner = makeJobRunner({ engines, workerId: 'w1', log: (message) => { logged.push(message) }, metrics, clock, ...(atOnce ? { events: services.events, blobs: services.blobs } : {}) }, services.run)
    const spec = validateJobSpec({ job_type: jobType, target_url: 'https://example.com/page' }, { allowlist: new Set(), isTimeZone: () => true })
    if (!spec.ok) throw new Error('invalid test spec')
    const jobId = 'job-1'
    await services.run(handle(jobDecider, STREAMS.job.stream(jobId), {
      _tag: 'RequestJob', origin: { _tag: 'api' }, job_id: jobId, org_id: ORG, api_key_id: 'k1', spec: spec.spec, now: '2024-05-01T12:00:00.000Z',
    }, { org_id: ORG, metadata: TEST_METADATA }))
    const stream = () => services.run(services.events.readStream(STREAMS.job.stream(jobId)))
    const [requested] = await stream()
    const decoded = async () => (await stream()).map((r) => decodeEvent(r.type, r.data))
    return { ...services, runner, requested: requested as RecordedEvent, stream, decoded, jobId, logged }
  }

  t.test(title('success: JobStarted then JobSucceeded, artifacts stored in the blob store'), async (t) => {
    const { engine, runs } = fakeEngine('light', async () => ({
      ok: true, manifest: { http_status: 200, final_url: 'https://example.com/page' },
      artifacts: [{ artifact_type: 'html', content_type: 'text/html', bytes: PAGE }],
    }))
    const { runner, requested, stream, decoded, blobs, jobId } = await setup({ light: engine })
    await runner.handle(requested)
    t.same(runs, [jobId], 'the engine ran the job once')
    t.same((await stream()).map((e) => e.type), ['JobRequested', 'JobStarted', 'JobSucceeded', 'CreditsCharged'], 'the end and its charge')
    const [, started, succeeded] = await decoded()
    t.match(started, { _tag: 'JobStarted', attempt: 1, worker_id: 'w1', started_at: '2024-05-01T12:00:05.000Z' }, 'started at the Clock\'s time')
    if (succeeded?._tag !== 'JobSucceeded') return t.fail('expected JobSucceeded')
    t.equal(succeeded.finished_at, '2024-05-01T12:00:05.000Z', 'finished at the Clock\'s time')
    t.equal(succeeded.artifacts[0]?.created_at, '2024-05-01T12:00:05.000Z', 'its artifact too')
    t.same(succeeded.manifest, { http_status: 200, final_url: 'https://example.com/page' })
    t.equal(succeeded.artifacts.length, 1)
    const [record] = succeeded.artifacts
    t.match(record, { artifact_type: 'html', content_type: 'text/html', size: PAGE.byteLength, sha256: sha256(PAGE), blob_key: `jobs/${ORG}/${jobId}/${record!.artifact_id}` })
    const stored = await Effect.runPromise(blobs.get(record!.blob_key))
    t.same(Buffer.from(stored.bytes), Buffer.from(PAGE), 'the bytes are in the blob store under the recorded key')
    t.equal(stored.contentType, 'text/html')
    const [, startedEnvelope] = await stream()
    t.match(startedEnvelope!.metadata, { causation_id: requested.event_id, correlation_id: requested.metadata.correlation_id, actor: 'fetcher:w1' }, 'outcomes name their cause')
  })

  t.test(title('an engine failure records JobFailed with its reason, manifest and artifacts'), async (t) => {
    const { engine } = fakeEngine('light', async () => failure('http_error', 'the target answered 503', {
      manifest: { http_status: 503 }, artifacts: [{ artifact_type: 'response_body', content_type: 'text/plain', bytes: new TextEncoder().encode('busy') }],
    }))
    const { runner, requested, decoded } = await setup({ light: engine })
    await runner.handle(requested)
    const events = await decoded()
    t.same(events.map((e) => e._tag), ['JobRequested', 'JobStarted', 'JobFailed'])
    t.match(events[2], { failure_reason: 'http_error', message: 'the target answered 503', manifest: { http_status: 503 }, artifacts: [{ artifact_type: 'response_body', size: 4 }] })
  })

  t.test(title('an engine that throws records JobFailed engine_error and logs it'), async (t) => {
    const { engine } = fakeEngine('light', async () => { throw new Error('boom') })
    const { runner, requested, decoded, logged } = await setup({ light: engine })
    await runner.handle(requested)
    t.match((await decoded())[2], { _tag: 'JobFailed', failure_reason: 'engine_error' })
    t.match(logged, [/engine light crashed on job job-1/])
  })

  t.test(title('a redelivered JobRequested of a finished job does nothing'), async (t) => {
    const { engine, runs } = fakeEngine('light', async () => ({ ok: true, manifest: {}, artifacts: [] }))
    const { runner, requested, stream } = await setup({ light: engine })
    await runner.handle(requested)
    const after = await stream()
    await runner.handle(requested)
    t.same(await stream(), after, 'no new event')
    t.equal(runs.length, 1, 'the engine did not run again')
  })

  t.test(title('a job whose tier has no engine fails with engine_unavailable'), async (t) => {
    const { engine, runs } = fakeEngine('light', async () => ({ ok: true, manifest: {}, artifacts: [] }))
    const { runner, requested, decoded } = await setup({ light: engine }, 'stealth')
    await runner.handle(requested)
    const events = await decoded()
    t.same(events.map((e) => e._tag), ['JobRequested', 'JobStarted', 'JobFailed'])
    t.match(events[2], { failure_reason: 'engine_unavailable', message: /stealth engine is not available/ })
    t.same(runs, [], 'no other engine ran it')
  })

  t.test(title('a shutdown abort leaves no terminal event; the job runs again after the restart'), async (t) => {
    let running!: () => void
    const engineStarted = new Promise<void>((resolve) => { running = resolve })
    const { engine } = fakeEngine('light', (request) => new Promise((_, reject) => {
      running()
      request.signal.addEventListener('abort', () => reject(new Error('aborted')))
    }))
    const first = await setup({ light: engine })
    const handled = first.runner.handle(first.requested)
    await engineStarted
    first.runner.abort()
    const result = await handled.then(() => Either.right(undefined), (error: unknown) => Either.left(error))
    t.ok(Either.isLeft(result), 'the handler rejects, so the subscription does not checkpoint past the event')
    t.same((await first.stream()).map((e) => e.type), ['JobRequested', 'JobStarted'], 'no JobSucceeded or JobFailed')
    const { engine: restarted } = fakeEngine('light', async () => ({ ok: true, manifest: {}, artifacts: [] }))
    const afterRestart = makeJobRunner({ engines: { light: restarted }, workerId: 'w2', log: () => {}, clock, ...(atOnce ? { events: first.events, blobs: first.blobs } : {}) }, first.run)
    await afterRestart.handle(first.requested)
    const events = await first.decoded()
    t.same(events.map((e) => e._tag), ['JobRequested', 'JobStarted', 'JobStarted', 'JobSucceeded', 'CreditsCharged'])
    t.match(events[2], { attempt: 2, worker_id: 'w2' })
  })

  t.test(title('a worker whose job another worker finished meanwhile appends no second end, and counts nothing'), async (t) => {
    const finished: FinishedJob[] = []
    let other!: () => Promise<unknown>
    const { engine } = fakeEngine('light', async () => {
      await other()
      return { ok: true, manifest: {}, artifacts: [] }
    })
    const { runner, requested, decoded, run, jobId } = await setup({ light: engine }, 'light', finished)
    // The other worker started the job again (its first one died, as it seemed) and finished it first.
    other = async () => {
      const stream = STREAMS.job.stream(jobId)
      for (const command of [{ _tag: 'StartJob', job_id: jobId, worker_id: 'w2', now: '2024-05-01T12:00:01.000Z' }, { _tag: 'SucceedJob', job_id: jobId, manifest: {}, artifacts: [], now: '2024-05-01T12:00:02.000Z' }] as const) {
        await run(handle(jobDecider, stream, command, { org_id: ORG, metadata: TEST_METADATA }))
      }
    }
    await runner.handle(requested)
    t.same((await decoded()).map((e) => e._tag), ['JobRequested', 'JobStarted', 'JobStarted', 'JobSucceeded', 'CreditsCharged'], 'one terminal event and one charge, the other worker\'s')
    t.same(finished, [], 'the worker that lost counts nothing')
  })
}
