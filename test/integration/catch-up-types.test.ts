import { randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import t from 'tap'
import { makeMemoryDocumentStore } from '../../infra/memory/document-store.js'
import { memoryCatchUpLog } from '../../infra/memory/catch-up-log.js'
import { makeMemoryEventStore } from '../../infra/memory/event-store.js'
import type { NewEvent, RecordedEvent } from '../../ports/event-store.js'
import { gate, until } from '../contract/event-log.contract.js'

const newEvent = (type: string): NewEvent => ({
  event_id: randomUUID(), type, org_id: 'org-1', occurred_at: '2024-05-01T12:00:00.000Z', data: {},
  metadata: { correlation_id: 'c', causation_id: null, actor: 'test' },
})

// A subscription that names its event types: the catch-up log hands over only those, and passes the others as handled
// without moving its checkpoint past an unfinished event before them.
t.test('a catch-up subscription with types gets only those; its checkpoint passes the others in log order', async (t) => {
  const store = makeMemoryEventStore()
  const log = memoryCatchUpLog(store, makeMemoryDocumentStore(), { pollIntervalMs: 20 })
  const append = async (stream: string, type: string) => {
    await Effect.runPromise(store.append(stream, [newEvent(type)], 'any'))
    const events = await Effect.runPromise(store.readStream(stream))
    return events.at(-1)!
  }
  const slow = await append('job-1', 'Wanted')
  const skippedAfterSlow = await append('job-2', 'Other')
  const fast = await append('job-3', 'Wanted')
  await append('org-1', 'Wanted')
  const held = gate()
  const received: RecordedEvent[] = []
  const subscription = await Effect.runPromise(log.subscribe({ name: 'typed', categories: ['job'], types: ['Wanted'], concurrency: 4 }, async (event) => {
    if (event.event_id === slow.event_id) await held.opened
    received.push(event)
  }))
  t.teardown(() => subscription.stop())
  await until(() => received.length === 1, 'the fast event')
  t.same(received.map((event) => event.event_id), [fast.event_id], 'the fast one of its type runs beside the slow one')
  t.ok(subscription.checkpoint() < slow.position, 'the checkpoint waits for the slow event')
  t.ok(subscription.checkpoint() < skippedAfterSlow.position, 'and so does not pass an event of another type after it')
  held.open()
  const last = await append('job-2', 'Other')
  await until(() => subscription.checkpoint() >= last.position, 'the checkpoint to pass the last event')
  t.same(received.map((event) => event.event_id).sort(), [slow.event_id, fast.event_id].sort(), 'only its categories and types were handed over')
})

// A subscription that says which events of its types it accepts (from the recorded event alone): the others are passed
// over like other types, without a handler run, and its checkpoint still passes them.
t.test('a catch-up subscription with accepts gets only the events it accepts; its checkpoint passes the others', async (t) => {
  const store = makeMemoryEventStore()
  const log = memoryCatchUpLog(store, makeMemoryDocumentStore(), { pollIntervalMs: 20 })
  const appendTo = async (stream: string, data: Record<string, unknown>) => {
    await Effect.runPromise(store.append(stream, [{ ...newEvent('Ended'), data }], 'any'))
    return (await Effect.runPromise(store.readStream(stream))).at(-1)!
  }
  const mine = await appendTo('job-1', { origins: ['monitor_run'] })
  await appendTo('job-2', { origins: [] })
  const received: RecordedEvent[] = []
  const asked: string[] = []
  const subscription = await Effect.runPromise(log.subscribe({
    name: 'accepting', categories: ['job'], types: ['Ended'], concurrency: 4,
    accepts: (event) => {
      asked.push(event.stream)
      return (event.data.origins as string[]).includes('monitor_run')
    },
  }, async (event) => { received.push(event) }))
  t.teardown(() => subscription.stop())
  const last = await appendTo('job-3', { origins: [] })
  await until(() => subscription.checkpoint() >= last.position, 'the checkpoint to pass the last event')
  t.same(received.map((event) => event.event_id), [mine.event_id], 'only the accepted event was handed over')
  t.same(asked.sort(), ['job-1', 'job-2', 'job-3'], 'each event of its types was asked about once')
})
