import { randomUUID } from 'node:crypto'
import { Effect, Either } from 'effect'
import type { Test } from 'tap'
import type { EventStoreService, ExpectedRevision, NewEvent, StoreUnavailable, WrongExpectedRevision } from '../../ports/event-store.js'

/** The EventStore port's contract: every adapter (SQLite, EventStoreDB, ...) must pass it unchanged. */
export interface EventStoreFixture {
  readonly store: EventStoreService
  readonly cleanup: () => Promise<void>
}

const newEvent = (type = 'Thing', data: Record<string, unknown> = {}): NewEvent => ({
  event_id: randomUUID(),
  type,
  org_id: 'org-1',
  occurred_at: '2024-05-01T12:00:00.000Z',
  data,
  metadata: { correlation_id: 'corr-1', causation_id: null, actor: 'test' },
})
const stream = (category = 'thing') => `${category}-${randomUUID()}`

export const eventStoreContract = (t: Test, name: string, make: () => Promise<EventStoreFixture>) =>
  t.test(`EventStore contract: ${name}`, async (t) => {
    const { store, cleanup } = await make()
    t.teardown(cleanup)
    const append = (s: string, events: readonly NewEvent[], expected: ExpectedRevision) => Effect.runPromise(store.append(s, events, expected))
    const appendEither = (s: string, events: readonly NewEvent[], expected: ExpectedRevision) =>
      Effect.runPromise(Effect.either(store.append(s, events, expected)))
    const read = (s: string) => Effect.runPromise(store.readStream(s))
    const readAll = (after: number, limit: number) => Effect.runPromise(store.readAll(after, limit))

    t.test('no_stream appends to a new stream, revisions start at 0', async (t) => {
      const s = stream()
      const result = await append(s, [newEvent(), newEvent()], 'no_stream')
      t.equal(result.revision, 1)
      t.same((await read(s)).map((e) => e.revision), [0, 1])
    })

    t.test('no_stream on an existing stream fails with WrongExpectedRevision', async (t) => {
      const s = stream()
      await append(s, [newEvent()], 'no_stream')
      const result = await appendEither(s, [newEvent()], 'no_stream')
      t.ok(Either.isLeft(result))
      if (Either.isLeft(result)) {
        t.equal(result.left._tag, 'WrongExpectedRevision')
        t.match(result.left, { stream: s, expected: 'no_stream', actual: 0 })
      }
      t.equal((await read(s)).length, 1, 'nothing appended')
    })

    t.test('an exact expected revision must match the head', async (t) => {
      const s = stream()
      await append(s, [newEvent(), newEvent()], 'no_stream')
      t.equal((await append(s, [newEvent()], 1)).revision, 2, 'match appends')
      const stale = await appendEither(s, [newEvent()], 1)
      t.ok(Either.isLeft(stale) && stale.left._tag === 'WrongExpectedRevision', 'mismatch fails')
      if (Either.isLeft(stale)) t.match(stale.left, { expected: 1, actual: 2 })
      const onMissing = await appendEither(stream(), [newEvent()], 0)
      t.ok(Either.isLeft(onMissing) && onMissing.left._tag === 'WrongExpectedRevision', 'a number on a missing stream fails')
      t.equal((await read(s)).length, 3)
    })

    t.test('any appends whatever the head', async (t) => {
      const s = stream()
      t.equal((await append(s, [newEvent()], 'any')).revision, 0)
      t.equal((await append(s, [newEvent(), newEvent()], 'any')).revision, 2)
      t.same((await read(s)).map((e) => e.revision), [0, 1, 2])
    })

    t.test('revisions are contiguous per stream, independent of other streams', async (t) => {
      const a = stream()
      const b = stream()
      await append(a, [newEvent()], 'no_stream')
      await append(b, [newEvent(), newEvent()], 'no_stream')
      await append(a, [newEvent(), newEvent()], 0)
      await append(b, [newEvent()], 1)
      t.same((await read(a)).map((e) => e.revision), [0, 1, 2])
      t.same((await read(b)).map((e) => e.revision), [0, 1, 2])
    })

    t.test('readStream answers events in append order', async (t) => {
      const s = stream()
      const events = Array.from({ length: 5 }, (_, i) => newEvent('Step', { i }))
      await append(s, events.slice(0, 2), 'no_stream')
      await append(s, events.slice(2), 1)
      const stored = await read(s)
      t.same(stored.map((e) => e.event_id), events.map((e) => e.event_id))
      t.same(stored.map((e) => e.data), [0, 1, 2, 3, 4].map((i) => ({ i })))
      const positions = stored.map((e) => e.position)
      t.ok(positions.every((p, i) => i === 0 || p > positions[i - 1]!), 'positions grow along the stream')
    })

    t.test('readStream of a missing stream answers []', async (t) => {
      t.same(await read(stream()), [])
    })

    t.test('readAll is globally ordered, `after` exclusive, `limit` honoured', async (t) => {
      const start = await append(stream(), [newEvent()], 'no_stream')
      const a = stream()
      const b = stream()
      const ids = [newEvent(), newEvent(), newEvent(), newEvent()]
      await append(a, [ids[0]!], 'no_stream')
      await append(b, [ids[1]!, ids[2]!], 'no_stream')
      await append(a, [ids[3]!], 0)
      const after = await readAll(start.position, 100)
      t.same(after.map((e) => e.event_id), ids.map((e) => e.event_id), 'interleaved streams in append order')
      t.ok(after.every((e, i) => e.position > start.position && (i === 0 || e.position > after[i - 1]!.position)), 'strictly increasing, after start')
      const firstTwo = await readAll(start.position, 2)
      t.same(firstTwo.map((e) => e.event_id), ids.slice(0, 2).map((e) => e.event_id), 'limit')
      const rest = await readAll(firstTwo[1]!.position, 100)
      t.same(rest.map((e) => e.event_id), ids.slice(2).map((e) => e.event_id), 'after is exclusive')
      t.same(await readAll(after[3]!.position, 100), [], 'nothing after the end')
    })

    t.test('envelope fields round-trip', async (t) => {
      const s = stream('job')
      const event: NewEvent = {
        event_id: randomUUID(),
        type: 'JobRequested',
        org_id: 'org-42',
        occurred_at: '2024-06-30T23:59:59.123Z',
        data: { nested: { list: [1, 'two', null, true] }, text: 'héllo "quoted"', n: 1.5 },
        metadata: { correlation_id: 'c-9', causation_id: 'cause-7', actor: 'api_key:abc' },
      }
      const result = await append(s, [event], 'no_stream')
      const [stored] = await read(s)
      t.same(stored, { ...event, stream: s, revision: 0, position: result.position })
      const [viaLog] = await readAll(result.position - 1, 1)
      t.same(viaLog, stored, 'readAll answers the same envelope')
    })

    t.test('appending the same event ids again is a no-op answering the current revision', async (t) => {
      const s = stream()
      const events = [newEvent(), newEvent()]
      const first = await append(s, events, 'no_stream')
      const again = await append(s, events, 'no_stream')
      t.same(again, first, 'same answer, no WrongExpectedRevision')
      const stored = await read(s)
      t.equal(stored.length, 2)
      const all = await readAll(stored[0]!.position - 1, 100)
      t.equal(all.filter((e) => e.event_id === events[0]!.event_id).length, 1, 'no duplicate in the log')
      const later = await append(s, [newEvent()], 1)
      t.same(await append(s, events, 1), later, 'a retry after later appends answers the current head')
    })

    t.test('concurrent appends with the same expected revision: exactly one wins', async (t) => {
      const s = stream()
      await append(s, [newEvent()], 'no_stream')
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => appendEither(s, [newEvent('Race', { i })], 0)))
      const winners = results.filter(Either.isRight)
      t.equal(winners.length, 1)
      t.ok(results.filter(Either.isLeft).every((r) => r.left._tag === 'WrongExpectedRevision'), 'the others get the typed conflict')
      const stored = await read(s)
      t.equal(stored.length, 2)
      t.equal(stored[1]!.revision, 1)
    })

    t.test('concurrent appends to a new stream with no_stream: exactly one wins', async (t) => {
      const s = stream()
      const results = await Promise.all(Array.from({ length: 20 }, () => appendEither(s, [newEvent()], 'no_stream')))
      t.equal(results.filter(Either.isRight).length, 1)
      t.equal((await read(s)).length, 1)
    })

    t.test('the synchronous entry points come both or neither', async (t) => {
      t.equal(store.appendNow === undefined, store.readStreamNow === undefined)
    })

    const { appendNow, readStreamNow } = store
    if (appendNow === undefined || readStreamNow === undefined) return
    t.test('appendNow throws the typed conflict; readStreamNow answers what readStream does', async (t) => {
      const s = stream()
      const first = appendNow(s, [newEvent(), newEvent()], 'no_stream')
      t.equal(first.revision, 1)
      let thrown: unknown = null
      try { appendNow(s, [newEvent()], 0) } catch (e) { thrown = e }
      t.match(thrown, { _tag: 'WrongExpectedRevision', stream: s, expected: 0, actual: 1 })
      t.same(readStreamNow(s), await read(s))
      t.same(readStreamNow(stream()), [])
    })
  })

/** The store with append and readStream answered by its synchronous entry points, so the whole contract runs against those too. */
export const throughNowEntries = (store: EventStoreService): EventStoreService => {
  const { appendNow, readStreamNow } = store
  if (!appendNow || !readStreamNow) throw new Error('the store has no synchronous entry points')
  return {
    ...store,
    append: (s, events, expected) => Effect.try({ try: () => appendNow(s, events, expected), catch: (e) => e as WrongExpectedRevision | StoreUnavailable }),
    readStream: (s) => Effect.try({ try: () => readStreamNow(s), catch: (e) => e as StoreUnavailable }),
  }
}
