import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Effect } from 'effect'
import { MongoClient } from 'mongodb'
import t from 'tap'
import { handle } from '../../commands/handle.js'
import { jobDecider } from '../../domain/job/decider.js'
import { validateJobSpec } from '../../domain/job/spec.js'
import { STREAMS } from '../../domain/streams.js'
import { mongoDocumentStore } from '../../infra/mongo/document-store.js'
import { applyBatch } from '../../infra/roles/projector.js'
import { makeSqliteEventStore } from '../../infra/sqlite/event-store.js'
import { JOBS, jobsProjection } from '../../projections/jobs.js'
import { readableOnceStarted } from '../../projections/read-your-writes.js'
import { DocumentStore, type DocumentStoreService } from '../../ports/document-store.js'
import { EventStore } from '../../ports/event-store.js'
import { acquire } from '../helpers/scoped.js'
import { TEST_METADATA } from '../helpers/memory-services.js'

/**
 * Read-your-writes on a new job without waiting for the projector (scale-out, MongoDB protocol): the API's process
 * creates the job's record from its JobRequested with the projection's own fold, and whichever of it and the projector
 * comes second leaves the record the projector alone makes.
 */
const url = process.env.MONGO_URL
if (!url && process.env.REQUIRE_SERVICES === '1') t.fail('MONGO_URL is not set but REQUIRE_SERVICES=1')

t.test('a new job readable at once: created from its first event, and the projector ends where it alone would', { skip: url ? false : 'set MONGO_URL to run it' }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-ryw-'))
  const events = makeSqliteEventStore(join(dir, 'events.db'))
  const client = await new MongoClient(url!).connect()
  const databases: string[] = []
  const releases: (() => Promise<void>)[] = []
  t.teardown(async () => {
    for (const release of releases) await release()
    for (const database of databases) await client.db(database).dropDatabase()
    await client.close()
    events.db.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const freshStore = async () => {
    const database = `ryw_${randomUUID().slice(0, 8)}`
    databases.push(database)
    const { value, release } = await acquire(mongoDocumentStore({ url: url!, database }))
    releases.push(release)
    return value
  }
  const run = <A, E>(docs: DocumentStoreService, effect: Effect.Effect<A, E, DocumentStore | EventStore>) =>
    Effect.runPromise(effect.pipe(Effect.provideService(DocumentStore, docs), Effect.provideService(EventStore, events)))
  const checked = validateJobSpec({ job_type: 'light', target_url: 'https://example.com/', tags: ['a'] }, { allowlist: new Set(), isTimeZone: () => true })
  if (!checked.ok) throw new Error('invalid spec')
  const job = (command: 'request' | 'start', jobId: string) => Effect.runPromise(handle(jobDecider, STREAMS.job.stream(jobId),
    command === 'request'
      ? { _tag: 'RequestJob', origin: { _tag: 'api' }, job_id: jobId, org_id: 'org-1', api_key_id: 'key-1', spec: checked.spec, now: '2026-01-01T00:00:00.000Z' }
      : { _tag: 'StartJob', job_id: jobId, worker_id: 'w', now: '2026-01-01T00:00:01.000Z' },
    { org_id: 'org-1', metadata: TEST_METADATA }).pipe(Effect.provideService(EventStore, events)))
  const history = (jobId: string) => Effect.runPromise(events.readStream(STREAMS.job.stream(jobId)))
  const record = (docs: DocumentStoreService, jobId: string) => Effect.runPromise(docs.get(JOBS.name, jobId))

  // What the projector alone makes of a job's events, in a store of its own.
  const projectorOnly = await freshStore()
  const live = await freshStore()

  await t.test('created by the command\'s process: the projector then skips its JobRequested', async (t) => {
    const jobId = randomUUID()
    const requested = await job('request', jobId)
    const answered = await run(live, readableOnceStarted(jobsProjection, JOBS, jobId, STREAMS.job.stream(jobId), requested.position))
    const stored = await record(live, jobId)
    t.same(answered, stored, 'answers the record it created')
    await job('start', jobId)
    const all = await history(jobId)
    await run(projectorOnly, applyBatch(jobsProjection, all))
    t.same(stored, { ...(await record(projectorOnly, jobId)), status: 'queued', started_at: null, attempts: 0, _position: requested.position }, 'the record the projector makes of JobRequested')
    await run(live, applyBatch(jobsProjection, all))
    t.same(await record(live, jobId), await record(projectorOnly, jobId), 'after the projector: the record it alone makes')
    t.equal((await record(live, jobId))!.status, 'running')
  })

  await t.test('the projector first: the creation finds the record and answers it', async (t) => {
    const jobId = randomUUID()
    const requested = await job('request', jobId)
    await run(live, applyBatch(jobsProjection, await history(jobId)))
    const before = await record(live, jobId)
    const answered = await run(live, readableOnceStarted(jobsProjection, JOBS, jobId, STREAMS.job.stream(jobId), requested.position))
    t.same(answered, before)
    t.same(await record(live, jobId), before, 'unchanged')
  })

  await t.test('created while a projector batch that read it as absent runs: the batch fails, and applied again ends right', async (t) => {
    const jobId = randomUUID()
    const requested = await job('request', jobId)
    await job('start', jobId)
    const all = await history(jobId)
    const raced = await run(live, Effect.either(live.inBatch(Effect.gen(function* () {
      yield* Effect.forEach(all, jobsProjection.apply, { discard: true })
      // The command's process, outside the batch, between the batch's read and its writes.
      yield* Effect.promise(() => run(live, readableOnceStarted(jobsProjection, JOBS, jobId, STREAMS.job.stream(jobId), requested.position)))
    }))))
    t.equal(raced._tag, 'Left', 'the batch\'s insert finds the record there')
    t.equal((await record(live, jobId))!.status, 'queued', 'the created record stays')
    await run(live, applyBatch(jobsProjection, all))
    await run(projectorOnly, applyBatch(jobsProjection, all))
    t.same(await record(live, jobId), await record(projectorOnly, jobId), 'applied again: the record the projector alone makes')
  })
})
