import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Effect } from 'effect'
import t, { type Test } from 'tap'
import { sqliteCatchUpLog } from '../../infra/sqlite/checkpoints.js'
import type { EventHandler, Subscription } from '../../ports/event-log.js'
import type { NewEvent, RecordedEvent } from '../../ports/event-store.js'
import { makeSqliteEventStore } from '../../infra/sqlite/event-store.js'
import { gate, until } from '../contract/event-log.contract.js'

const newEvent = (): NewEvent => ({
  event_id: randomUUID(), type: 'Step', org_id: 'o1', occurred_at: '2024-05-01T12:00:00.000Z', data: {},
  metadata: { correlation_id: 'c', causation_id: null, actor: 'test' },
})

/** One "process": a new store object and a new log over the given file. */
const open = (file: string) => {
  const store = makeSqliteEventStore(file)
  const log = sqliteCatchUpLog(store, { pollIntervalMs: 20 })
  const subscribe = (name: string, handler: EventHandler, concurrency = 1): Promise<Subscription> =>
    Effect.runPromise(log.subscribe({ name, categories: ['job'], concurrency }, handler))
  const append = async (stream: string, count = 1) => {
    await Effect.runPromise(store.append(stream, Array.from({ length: count }, newEvent), 'any'))
    return Effect.runPromise(store.readStream(stream))
  }
  const durableCheckpoint = (name: string) =>
    (store.db.prepare('select position from checkpoints where name = ?').get(name) as { position: number } | undefined)?.position
  const close = () => store.db.close()
  return { store, subscribe, append, durableCheckpoint, close }
}

/** A temp file plus a cleanup stack, unwound last-in first-out (subscriptions, then stores, then the folder). */
const setup = (t: Test) => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-resume-'))
  const stack: (() => unknown)[] = [() => rmSync(dir, { recursive: true, force: true })]
  t.teardown(async () => { for (const f of stack.reverse()) await f() })
  return { file: join(dir, 'events.db'), defer: (f: () => unknown) => { stack.push(f) } }
}
const ids = (events: readonly RecordedEvent[]) => events.map((e) => e.event_id)

t.test('a new process resumes from the durable checkpoint', async (t) => {
  const { file, defer } = setup(t)

  const first = open(file)
  defer(first.close)
  const old = [...(await first.append('job-1', 3)), ...(await first.append('job-2', 2))]
  await first.append('org-1')
  const handledBefore: RecordedEvent[] = []
  const sub1 = await first.subscribe('projector', async (e) => { handledBefore.push(e) })
  defer(sub1.stop)
  await until(() => handledBefore.length === 5, 'the first five events')
  await sub1.stop()
  t.same(ids(handledBefore), ids(old), 'first run handled the job events in log order')
  const saved = first.durableCheckpoint('projector')
  t.ok(saved !== undefined && saved >= old[4]!.position, `checkpoint persisted (${saved})`)

  const fresh = [...(await first.append('job-1', 1)), ...(await first.append('job-3', 1))].filter((e) => !ids(old).includes(e.event_id))
  t.equal(fresh.length, 2)
  await first.close()

  const second = open(file)
  defer(second.close)
  t.not(second.store, first.store, 'a different store object')
  const handledAfter: RecordedEvent[] = []
  const sub2 = await second.subscribe('projector', async (e) => { handledAfter.push(e) })
  defer(sub2.stop)
  await until(() => sub2.checkpoint() >= fresh[1]!.position, 'the resumed subscriber to catch up')
  t.same(ids(handledAfter), ids(fresh), 'only the new events, none redelivered')

  const everything: RecordedEvent[] = []
  const other = await second.subscribe('another-projector', async (e) => { everything.push(e) })
  defer(other.stop)
  await until(() => everything.length === 7, 'a new subscriber name to read from the start')
  t.same(ids(everything), [...ids(old), ...ids(fresh)], 'checkpoints are per subscriber name')
})

t.test('an event abandoned at shutdown is delivered again after a restart', async (t) => {
  const { file, defer } = setup(t)

  const first = open(file)
  defer(first.close)
  const [done] = await first.append('job-a')
  const [abandoned] = await first.append('job-b')
  const held = gate()
  const handled: string[] = []
  let reachedSecond = false
  const sub1 = await first.subscribe('mailer', async (e) => {
    if (e.event_id === abandoned!.event_id) {
      reachedSecond = true
      await held.opened
      throw new Error('connection closed during shutdown')
    }
    handled.push(e.event_id)
  })
  defer(sub1.stop)
  await until(() => reachedSecond, 'the second event to be in flight')
  const stopping = sub1.stop()
  held.open()
  await stopping
  t.same(handled, [done!.event_id])
  t.equal(first.durableCheckpoint('mailer'), done!.position, 'the checkpoint stops before the abandoned event')
  await first.close()

  const second = open(file)
  defer(second.close)
  const redelivered: string[] = []
  const sub2 = await second.subscribe('mailer', async (e) => { redelivered.push(e.event_id) })
  defer(sub2.stop)
  await until(() => sub2.checkpoint() >= abandoned!.position, 'the restarted subscriber to finish it')
  t.same(redelivered, [abandoned!.event_id], 'the abandoned event, and only it')
})
