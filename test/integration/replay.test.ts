import { randomUUID } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Effect } from 'effect'
import { MongoClient } from 'mongodb'
import t from 'tap'
import { streamCategory } from '../../domain/streams.js'
import { loadConfig } from '../../infra/config.js'
import { startProcess } from '../../infra/process.js'
import { replayProjections } from '../../infra/replay.js'
import { PROJECTIONS } from '../../projections/index.js'
import { collection, defineProjection, type Projection, type Stored } from '../../projections/projection.js'
import { DocumentStore, type Doc } from '../../ports/document-store.js'
import { EventStore, type RecordedEvent } from '../../ports/event-store.js'
import type { ProjectionSpecFile } from '../helpers/projection-spec.js'
import { tempDataDir } from '../helpers/service.js'

/**
 * `cli replay`: the read models it rebuilds equal those the live path folded, event by event, from the same log (each
 * area's projection-spec history), on SQLite and, when MONGO_URL is set, on MongoDB; on SQLite a replay that fails
 * part-way leaves the models as they were.
 */
const SPECS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'unit', 'projection-specs')
const specs = await Promise.all(readdirSync(SPECS_DIR).filter((name) => name.endsWith('.ts')).sort()
  .map(async (name) => ({ name, spec: ((await import(join(SPECS_DIR, name))) as { spec: ProjectionSpecFile }).spec })))
const silent = { info: () => {}, warn: () => {}, error: () => {} }

/** Read models on SQLite (the process's folder), or in a fresh MongoDB database. */
type ReadModels = { readonly store: 'sqlite' } | { readonly store: 'mongodb'; readonly url: string }

/** A process with no roles on a fresh folder, its log holding `history` in log order. */
const processWith = async (history: readonly RecordedEvent[], models: ReadModels = { store: 'sqlite' }) => {
  const database = `replay_${randomUUID().slice(0, 8)}`
  const readModels = models.store === 'mongodb' ? { READ_MODEL_STORE: 'mongodb', MONGO_URL: models.url, MONGO_DB: database } : {}
  const running = await startProcess(loadConfig({ DATA_DIR: tempDataDir('replay-test'), LOG_LEVEL: 'silent', ...readModels }), [], silent)
  await running.run(Effect.gen(function* () {
    const store = yield* EventStore
    for (const { stream, event_id, type, data, org_id, occurred_at, metadata } of [...history].sort((a, b) => a.position - b.position)) {
      yield* store.append(stream, [{ event_id, type, data, org_id, occurred_at, metadata }], 'any')
    }
  }))
  const dropDatabase = async () => {
    if (models.store !== 'mongodb') return
    const client = await MongoClient.connect(models.url)
    await client.db(database).dropDatabase()
    await client.close()
  }
  return { ...running, close: async () => { await running.close(); await dropDatabase() } }
}

/** Every document of the projections' collections, by collection, in id order. */
const snapshot = (projections: readonly Projection[]) => Effect.gen(function* () {
  const documents = yield* DocumentStore
  const all: Record<string, readonly Doc[]> = {}
  for (const name of projections.flatMap((projection) => projection.collections)) all[name] = yield* documents.find(name, {}, { sort: [['_id', 'asc']] })
  return all
})

/** The live path: every projection applies every event of the log, in log order. */
const foldLive = Effect.gen(function* () {
  const events = yield* (yield* EventStore).readAll(0, 1_000_000)
  for (const event of events) {
    for (const projection of PROJECTIONS) {
      if (projection.categories.includes(streamCategory(event.stream))) yield* projection.apply(event)
    }
  }
})

const replayEqualsLive = (models: ReadModels) => {
  for (const { name, spec } of specs) {
    t.test(`${models.store}, ${name}: replayed read models equal the live ones`, async (t) => {
      const running = await processWith(await spec.history(), models)
      t.teardown(() => running.close())
      await running.run(foldLive)
      const live = await running.run(snapshot(PROJECTIONS))
      t.ok(Object.values(live).some((docs) => docs.length > 0), 'the live path wrote documents')
      await running.run(replayProjections(PROJECTIONS))
      t.same(await running.run(snapshot(PROJECTIONS)), live, 'after a replay')
      await running.run(replayProjections(PROJECTIONS))
      t.same(await running.run(snapshot(PROJECTIONS)), live, 'after a second replay over the rebuilt models')
      // Reads of a few events: documents are written through between reads and read back in later ones.
      await running.run(replayProjections(PROJECTIONS, 3))
      t.same(await running.run(snapshot(PROJECTIONS)), live, 'after a replay reading the log 3 events at a time')
    })
  }
}

replayEqualsLive({ store: 'sqlite' })
const mongoUrl = process.env.MONGO_URL
if (mongoUrl) replayEqualsLive({ store: 'mongodb', url: mongoUrl })
else if (process.env.REQUIRE_SERVICES === '1') t.fail('MongoDB: MONGO_URL is not set but REQUIRE_SERVICES=1')

t.test('a replay that fails part-way leaves the read models as they were', async (t) => {
  const running = await processWith((await Promise.all(specs.filter(({ name }) => name === 'core.ts').map(({ spec }) => spec.history()))).flat())
  t.teardown(() => running.close())
  await running.run(replayProjections(PROJECTIONS))
  const before = await running.run(snapshot(PROJECTIONS))
  t.ok((before.jobs ?? []).length > 0, 'the models hold jobs')
  // A projection whose fold breaks on the log's last job event: every other projection has folded (and cleared) by then.
  const events = await running.run(Effect.flatMap(EventStore, (store) => store.readAll(0, 1_000_000)))
  const last = events.filter((event) => event.stream.startsWith('job-')).at(-1)!
  const breaking = defineProjection({
    name: 'projection.breaks', categories: ['job'], collections: ['breaks'], concurrency: 1, ordering: 'log',
    fold: (_event, envelope) => {
      if (envelope.position === last.position) throw new Error('a fold that breaks')
    },
  })
  const failed = await running.run(replayProjections([...PROJECTIONS, breaking])).then(() => null, (error: unknown) => error)
  t.ok(failed, 'the replay failed')
  t.same(await running.run(snapshot(PROJECTIONS)), before, 'every read model is as it was')
  // The failed rebuild let go of the file: another one can write it.
  await running.run(replayProjections(PROJECTIONS))
  t.same(await running.run(snapshot(PROJECTIONS)), before, 'a replay after the failed one rebuilds the same models')
})

t.test('a replay fails, leaving the read models as they were, when a write-once collection is written twice', async (t) => {
  const running = await processWith((await Promise.all(specs.filter(({ name }) => name === 'core.ts').map(({ spec }) => spec.history()))).flat())
  t.teardown(() => running.close())
  await running.run(replayProjections(PROJECTIONS))
  const before = await running.run(snapshot(PROJECTIONS))
  // Declared write-once, but every job event writes the same id: a rebuild that inserted it once (or kept the last
  // write) would diverge from a store that got every write, so it must fail instead.
  const twice = collection<Stored<{ readonly type: string }>>('written_twice')
  const misdeclared = defineProjection({
    name: 'projection.written-twice', categories: ['job'], collections: [twice.name], writeOnce: [twice.name], concurrency: 1, ordering: 'log',
    fold: (event, envelope, view) => view.put(twice, { _id: 'the-same-id', _position: envelope.position, type: event._tag }),
  })
  const failed = await running.run(replayProjections([...PROJECTIONS, misdeclared])).then(() => null, (error: unknown) => error)
  t.ok(failed, 'the replay failed')
  t.same(await running.run(snapshot(PROJECTIONS)), before, 'every read model is as it was')
})
