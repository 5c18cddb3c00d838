import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Effect } from 'effect'
import t, { type Test } from 'tap'
import { projectInBatches } from '../../infra/log/projection-batches.js'
import { sqliteCatchUpLog } from '../../infra/sqlite/checkpoints.js'
import { makeSqliteDocumentStore } from '../../infra/sqlite/document-store.js'
import { makeSqliteEventStore } from '../../infra/sqlite/event-store.js'
import { DocumentStore } from '../../ports/document-store.js'
import type { NewEvent } from '../../ports/event-store.js'
import { collection, updateDoc, type Projection, type Stored } from '../../projections/projection.js'
import { until } from '../contract/event-log.contract.js'

const newEvent = (type = 'Step'): NewEvent => ({
  event_id: randomUUID(), type, org_id: 'o1', occurred_at: '2024-05-01T12:00:00.000Z', data: {},
  metadata: { correlation_id: 'c', causation_id: null, actor: 'test' },
})

/**
 * A projection that counts the events of each stream with no position guard, so an event folded twice would show:
 * only exactly-once delivery keeps its counts equal to the log's. It fails on every event of type `Poison`.
 */
const counting = (name: string, categories: readonly string[]): Projection & { readonly calls: Set<string> } => {
  const calls = new Set<string>()
  const into = collection<Stored<{ count: number }>>(name)
  return {
    name, categories, collections: [name], indexes: [], concurrency: 1, ordering: 'log', calls,
    apply: () => Effect.die('the batch reader folds'),
    fold: (event, view) => {
      calls.add(event.event_id)
      if (event.type === 'Poison') throw new Error('poison')
      // A query writes the batch's documents of the collection through first.
      if (event.type === 'Query') view.find(into, {})
      view.put(into, { _id: event.stream, count: (view.get(into, event.stream)?.count ?? 0) + 1, _position: event.position })
      return undefined
    },
    foldDecoded: () => { throw new Error('the batch reader folds recorded events') },
  }
}

/** One "process" over the folder's two files: the event store with its log, and the read models. */
const open = (dir: string) => {
  const store = makeSqliteEventStore(join(dir, 'events.db'))
  const log = sqliteCatchUpLog(store, { pollIntervalMs: 20 })
  const docs = makeSqliteDocumentStore(join(dir, 'readmodels.db'))
  const errors: string[] = []
  /** Documents the projector read from the store one by one. */
  const reads = { count: 0 }
  // Both ways of reading one document: the projector uses the synchronous one where the store has it.
  const counted = {
    ...docs,
    get: (collection: string, id: string) => { reads.count++; return docs.get(collection, id) },
    getNow: (collection: string, id: string) => { reads.count++; return docs.getNow!(collection, id) },
  }
  const start = (projections: readonly Projection[]) => Effect.runPromise(projectInBatches(
    projections, log, counted, Effect.runSync(Effect.provideService(Effect.runtime<DocumentStore>(), DocumentStore, docs)),
    (message) => { errors.push(message) },
  ))
  const append = (stream: string, events: NewEvent[]) => Effect.runPromise(store.append(stream, events, 'any'))
  const count = (collection: string, stream: string) => Number(Effect.runSync(docs.get(collection, stream))?.count ?? 0)
  const kept = (name: string) => Number(Effect.runSync(docs.get('checkpoints', name))?.position ?? 0)
  const close = () => { store.db.close(); docs.db.close() }
  return { store, log, docs, reads, start, append, count, kept, errors, close }
}

const setup = (t: Test) => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-batches-'))
  const cleanups: (() => unknown)[] = []
  t.teardown(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
    rmSync(dir, { recursive: true, force: true })
  })
  return { dir, defer: (cleanup: () => unknown) => { cleanups.push(cleanup) } }
}

t.test('each batch is folded into every projection once, with its positions, across a restart', async (t) => {
  const { dir, defer } = setup(t)
  const first = open(dir)
  await first.append('job-1', [newEvent(), newEvent(), newEvent()])
  await first.append('org-1', [newEvent()])
  const jobs = counting('jobs', ['job'])
  const all = counting('all', ['job', 'org'])
  const running = await first.start([jobs, all])
  await until(() => running.position('all') === 4 && running.position('jobs') === 4, 'both projections past the four events')
  t.equal(first.count('jobs', 'job-1'), 3)
  t.equal(first.count('all', 'org-1'), 1)
  t.equal(first.kept('jobs'), 4, 'a position is saved with the documents it folded (the end of their batch)')
  t.equal(first.kept('all'), 4)
  await first.append('job-1', [newEvent()])
  await until(() => first.count('jobs', 'job-1') === 4, 'an appended event folded')
  await running.stop()
  first.close()

  const second = open(dir)
  defer(second.close)
  const jobsAgain = counting('jobs', ['job'])
  const allAgain = counting('all', ['job', 'org'])
  const resumed = await second.start([jobsAgain, allAgain])
  defer(resumed.stop)
  await second.append('job-1', [newEvent()])
  await until(() => second.count('all', 'job-1') === 5, 'the new event folded after the restart')
  t.equal(second.count('jobs', 'job-1'), 5, 'no event folded twice')
  t.equal(jobsAgain.calls.size, 1, 'only the new event was handed to the projection')
})

t.test('a failing event rolls its batch back; it is retried alone, then passed over, and the rest is folded once', async (t) => {
  const { dir, defer } = setup(t)
  const p = open(dir)
  defer(p.close)
  await p.append('job-1', [newEvent(), newEvent('Poison'), newEvent()])
  await p.append('org-1', [newEvent()])
  const jobs = counting('jobs', ['job'])
  const orgs = counting('orgs', ['org'])
  const running = await p.start([jobs, orgs])
  defer(running.stop)
  await until(() => running.position('jobs') === 4 && running.position('orgs') === 4, 'both projections past the batch', 20_000)
  t.equal(p.count('jobs', 'job-1'), 2, 'the good events of the failed batch folded once each')
  t.equal(p.count('orgs', 'org-1'), 1, 'another projection of the failed batch folded once')
  const poisonAttempts = p.errors.filter((message) => message.startsWith('projection jobs failed on Poison at 2')).length
  t.equal(poisonAttempts, 5, 'the poison event was tried alone five times')
  t.equal(p.kept('jobs'), 4, 'the position saved is past it')
  await p.append('job-1', [newEvent()])
  await until(() => p.count('jobs', 'job-1') === 3, 'later events still folded')
})

t.test('a projection resumes from the log checkpoint of its name when that is further (replay leaves it there)', async (t) => {
  const { dir, defer } = setup(t)
  const p = open(dir)
  defer(p.close)
  await p.append('job-1', [newEvent(), newEvent(), newEvent()])
  await Effect.runPromise(p.log.setCheckpoint('jobs', 2))
  const jobs = counting('jobs', ['job'])
  const running = await p.start([jobs])
  defer(running.stop)
  await until(() => running.position('jobs') === 3, 'the projection at the end of the log')
  t.equal(jobs.calls.size, 1, 'only the event after the log checkpoint')
  t.equal(p.kept('jobs'), 3)
})

t.test('documents a batch read or wrote are kept for the next batches, until something else changes them', async (t) => {
  const { dir, defer } = setup(t)
  const p = open(dir)
  defer(p.close)
  const jobs = counting('jobs', ['job'])
  const running = await p.start([jobs])
  defer(running.stop)
  const readsAtStart = p.reads.count
  await p.append('job-1', [newEvent()])
  await until(() => p.count('jobs', 'job-1') === 1, 'the first event folded')
  const readsBefore = p.reads.count
  t.ok(readsBefore > readsAtStart, "the first event's document was looked up in the store (the count sees the projector's reads)")
  await p.append('job-1', [newEvent()])
  await until(() => p.count('jobs', 'job-1') === 2, 'the second event folded')
  t.equal(p.reads.count, readsBefore, 'the document the batch before wrote is not read again')

  const other = makeSqliteDocumentStore(join(dir, 'readmodels.db'))
  Effect.runSync(other.put('jobs', { _id: 'job-1', count: 10, _position: 2 }))
  other.db.close()
  await p.append('job-1', [newEvent()])
  await until(() => p.count('jobs', 'job-1') !== 10, 'the third event folded')
  t.equal(p.count('jobs', 'job-1'), 11, "after another connection's commit, the document is read again")

  Effect.runSync(p.docs.put('jobs', { _id: 'job-1', count: 20, _position: 3 }))
  await p.append('job-1', [newEvent()])
  await until(() => p.count('jobs', 'job-1') !== 20, 'the fourth event folded')
  t.equal(p.count('jobs', 'job-1'), 21, 'after a write outside the projector, the document is read again')
})

t.test('a batch rolled back after writing documents through leaves none of them kept', async (t) => {
  const { dir, defer } = setup(t)
  const p = open(dir)
  defer(p.close)
  await p.append('job-1', [newEvent(), newEvent('Query'), newEvent('Poison')])
  const jobs = counting('jobs', ['job'])
  const running = await p.start([jobs])
  defer(running.stop)
  await until(() => running.position('jobs') === 3, 'the projection past the batch', 20_000)
  t.equal(p.count('jobs', 'job-1'), 2, 'the two good events folded once each, not on top of the rolled back batch')
  await p.append('job-1', [newEvent()])
  await until(() => p.count('jobs', 'job-1') === 3, 'a later event folded on the committed document')
})

t.test("a write-once collection's documents are written without reading them first", async (t) => {
  const { dir, defer } = setup(t)
  const p = open(dir)
  defer(p.close)
  const entries = collection<Stored<{ type: string }>>('entries')
  const trail: Projection = {
    name: 'trail', categories: ['job'], collections: [entries.name], writeOnce: [entries.name], indexes: [], concurrency: 1, ordering: 'log',
    apply: () => Effect.die('the batch reader folds'),
    foldDecoded: () => { throw new Error('not decoded here') },
    fold: (event, view) => {
      updateDoc(view, entries, event.event_id, event, () => ({ type: event.type }))
      return undefined
    },
  }
  const running = await p.start([trail])
  defer(running.stop)
  const readsBefore = p.reads.count
  const events = [newEvent(), newEvent('Other')]
  await p.append('job-1', events)
  await until(() => running.position('trail') === 2, 'both events folded')
  t.equal(p.reads.count, readsBefore, 'no document read')
  t.same(Effect.runSync(p.docs.get(entries.name, events[1]!.event_id)), { _id: events[1]!.event_id, type: 'Other', _position: 2 })
})
