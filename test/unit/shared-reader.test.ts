import { EventEmitter } from 'node:events'
import { Either } from 'effect'
import t from 'tap'
import { makeLogWake } from '../../infra/log/log-wake.js'
import { makeSharedReader, type Deliver } from '../../infra/log/shared-reader.js'
import type { RecordedEvent } from '../../ports/event-store.js'

const BATCH = 3

/** A log in memory that counts its reads, woken by its appends as the stores' logs are. */
const makeLog = () => {
  const events: RecordedEvent[] = []
  const appended = new EventEmitter()
  let reads = 0
  return {
    reads: () => reads,
    read: (after: number) => {
      reads += 1
      return Either.right(events.filter((event) => event.position > after).slice(0, BATCH))
    },
    append: (count: number) => {
      for (let i = 0; i < count; i++) {
        const position = events.length + 1
        events.push({
          event_id: `e${position}`, type: 'Step', org_id: 'o1', occurred_at: '2024-05-01T12:00:00.000Z', data: {},
          metadata: { correlation_id: 'c', causation_id: null, actor: 'test' }, stream: `s-${position % 2}`, revision: 0, position,
        })
      }
      appended.emit('append')
    },
    appended,
  }
}

const settle = async () => { for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve)) }

/** A member that takes events at once, or (while `hold` is set) answers a promise that waits for it. */
const member = () => {
  const seen: number[] = []
  let hold: Promise<void> | null = null
  const deliver: Deliver = (events) => {
    const take = () => {
      for (const event of events) seen.push(event.position)
      return events.at(-1)!.position
    }
    return hold ? hold.then(take) : take()
  }
  return { seen, deliver, holdUntil: (until: Promise<void>) => { hold = until }, release: () => { hold = null } }
}

t.test('members at the end of the log share one read per wake; a member that cannot take a batch at once catches up alone and rejoins', async (t) => {
  const log = makeLog()
  const wake = makeLogWake(10_000, log.appended)
  const reader = makeSharedReader({ read: log.read, batch: BATCH, wake, log: () => {} })
  log.append(2)
  const fast = member()
  const slow = member()
  const joined = [reader.join('fast', 0, fast.deliver), reader.join('slow', 1, slow.deliver)]
  await settle()
  t.same(fast.seen, [1, 2], 'each member starts after its own position')
  t.same(slow.seen, [2])

  let reads = log.reads()
  log.append(1)
  await settle()
  t.equal(log.reads() - reads, 1, 'one read for both once they are at the end')
  t.same(fast.seen, [1, 2, 3])
  t.same(slow.seen, [2, 3])

  let open!: () => void
  slow.holdUntil(new Promise<void>((resolve) => { open = resolve }))
  for (let i = 0; i < 4; i++) {
    log.append(2)
    await settle()
  }
  t.same(fast.seen, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 'the held member does not hold back the other')
  t.same(slow.seen, [2, 3], 'the held member has nothing yet')
  slow.release()
  open()
  await settle()
  t.same(slow.seen, [2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 'then every event once, in order')

  reads = log.reads()
  log.append(1)
  await settle()
  t.equal(log.reads() - reads, 1, 'rejoined: one read for both again')
  t.same(fast.seen.at(-1), 12)
  t.same(slow.seen.at(-1), 12)

  await Promise.all(joined.map((joining) => joining.stop()))
  log.append(1)
  await settle()
  t.same([fast.seen.at(-1), slow.seen.at(-1)], [12, 12], 'nothing after stop')
})

t.test('a member joining behind the shared reader reads alone up to it, then gets the rest from it', async (t) => {
  const log = makeLog()
  const wake = makeLogWake(10_000, log.appended)
  const reader = makeSharedReader({ read: log.read, batch: BATCH, wake, log: () => {} })
  const first = member()
  const joined = [reader.join('first', 0, first.deliver)]
  log.append(7)
  await settle()
  const late = member()
  joined.push(reader.join('late', 0, late.deliver))
  await settle()
  log.append(1)
  await settle()
  t.same(first.seen, [1, 2, 3, 4, 5, 6, 7, 8])
  t.same(late.seen, [1, 2, 3, 4, 5, 6, 7, 8], 'every event once, in order')
  const reads = log.reads()
  log.append(1)
  await settle()
  t.equal(log.reads() - reads, 1, 'caught up: one shared read')
  await Promise.all(joined.map((joining) => joining.stop()))
})
