import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Effect } from 'effect'
import t from 'tap'
import { decodeEvent } from '../../domain/events.js'
import { makeSqliteEventStore } from '../../infra/sqlite/event-store.js'
import type { NewEvent } from '../../ports/event-store.js'

const METADATA = { correlation_id: 'c', causation_id: null, actor: 'test' }
const started = (n: number): NewEvent => ({
  event_id: `e-${n}`, type: 'JobStarted', org_id: 'org-1', occurred_at: '2024-05-01T12:00:00.000Z', metadata: METADATA,
  data: { job_id: 'job-1', attempt: n, worker_id: 'w', started_at: '2024-05-01T12:00:00.000Z' },
})

/** Two stores on one file: two processes of one deployment, each holding the streams it read or appended. */
const twoProcesses = (teardown: (cleanup: () => void) => void) => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-stream-cache-'))
  const first = makeSqliteEventStore(join(dir, 'events.db'))
  const second = makeSqliteEventStore(join(dir, 'events.db'))
  teardown(() => { first.db.close(); second.db.close(); rmSync(dir, { recursive: true, force: true }) })
  return { first, second }
}

t.test('a held stream is read again once another process appended to it', async (t) => {
  const { first, second } = twoProcesses((cleanup) => t.teardown(cleanup))
  await Effect.runPromise(first.append('job-job-1', [started(1)], 'no_stream'))
  t.same((await Effect.runPromise(first.readStream('job-job-1'))).map((e) => e.revision), [0])
  await Effect.runPromise(second.append('job-job-1', [started(2)], 0))
  const read = await Effect.runPromise(first.readStream('job-job-1'))
  t.same(read.map((e) => e.event_id), ['e-1', 'e-2'], 'the other process\'s event is there')
  await Effect.runPromise(first.append('job-job-1', [started(3)], 1))
  t.same((await Effect.runPromise(first.readStream('job-job-1'))).map((e) => e.event_id), ['e-1', 'e-2', 'e-3'], 'and this process\'s own append follows it')
  t.same((await Effect.runPromise(second.readStream('job-job-1'))).map((e) => e.event_id), ['e-1', 'e-2', 'e-3'])
})

t.test('a held stream comes back as the same frozen records, decoded once', async (t) => {
  const { first } = twoProcesses((cleanup) => t.teardown(cleanup))
  await Effect.runPromise(first.append('job-job-1', [started(1)], 'no_stream'))
  const [once] = await Effect.runPromise(first.readStream('job-job-1'))
  const [again] = await Effect.runPromise(first.readStream('job-job-1'))
  t.equal(again, once, 'the same record')
  t.ok(Object.isFrozen(once!.data), 'frozen, so no reader can change what the next one gets')
  t.throws(() => { (once!.data as Record<string, unknown>).attempt = 9 })
  t.equal(decodeEvent(again!.type, again!.data), decodeEvent(once!.type, once!.data), 'one decoding')
  t.same(await Effect.runPromise(first.readStream('job-other')), [], 'an unknown stream is empty')
})

t.test('a caught-up reader of the log sees another process\'s appends, and its own, without a missed event', async (t) => {
  const { first, second } = twoProcesses((cleanup) => t.teardown(cleanup))
  const positions = (events: readonly { position: number }[]) => events.map((e) => e.position)
  await Effect.runPromise(first.append('job-job-1', [started(1)], 'no_stream'))
  const start = await Effect.runPromise(first.readAll(0, 100))
  t.same(positions(start), [1])
  t.same(await Effect.runPromise(first.readAll(1, 100)), [], 'caught up')
  await Effect.runPromise(first.append('job-job-1', [started(2)], 0))
  t.same(positions(await Effect.runPromise(first.readAll(1, 100))), [2], 'its own append')
  t.same(await Effect.runPromise(first.readAll(2, 100)), [], 'caught up again')
  await Effect.runPromise(second.append('job-job-2', [{ ...started(1), event_id: 'other-1' }], 'no_stream'))
  t.same(positions(await Effect.runPromise(first.readAll(2, 100))), [3], 'the other process\'s append')
  // The other process appends, then this one: its append follows an event its log tail has not read yet.
  await Effect.runPromise(second.append('job-job-2', [{ ...started(2), event_id: 'other-2' }], 0))
  await Effect.runPromise(first.append('job-job-1', [started(3)], 1))
  t.same(positions(await Effect.runPromise(first.readAll(3, 100))), [4, 5], 'both, in order')
  t.same(await Effect.runPromise(first.readAll(5, 100)), [], 'and nothing more')
  t.same(positions(await Effect.runPromise(second.readAll(0, 100))), [1, 2, 3, 4, 5], 'the other process reads them all')
})
