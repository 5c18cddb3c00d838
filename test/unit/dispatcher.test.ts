import t from 'tap'
import { makeDispatcher, type DispatcherOptions } from '../../infra/log/dispatcher.js'
import type { RecordedEvent } from '../../ports/event-store.js'

const event = (position: number, stream: string, revision = 0): RecordedEvent => ({
  event_id: `e${position}`, type: 'Step', org_id: 'o1', occurred_at: '2024-05-01T12:00:00.000Z', data: {},
  metadata: { correlation_id: 'c', causation_id: null, actor: 'test' }, stream, revision, position,
})

const gate = () => {
  let open!: () => void
  const opened = new Promise<void>((resolve) => { open = resolve })
  return { opened, open }
}

/** Lets every pending promise callback and immediate run. */
const settle = async () => { for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r)) }

const until = async (condition: () => boolean, what: string) => {
  const deadline = Date.now() + 10_000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 2))
  }
}

const dispatcher = (overrides: Partial<DispatcherOptions> & Pick<DispatcherOptions, 'handler'>) => {
  const checkpoints: number[] = []
  const errors: { position: number; attempt: number }[] = []
  const d = makeDispatcher({
    concurrency: 1,
    onCheckpoint: (p) => checkpoints.push(p),
    onError: (e, _error, attempt) => errors.push({ position: e.position, attempt }),
    isStopping: () => false,
    ...overrides,
  })
  /** Feeds events as the catch-up reader does: one at a time, waiting for a slot. */
  const feed = (events: readonly RecordedEvent[], relevant = true) =>
    (async () => { for (const e of events) await d.dispatch(e, relevant) })()
  return { d, feed, checkpoints, errors }
}

t.test('at most `concurrency` handlers run at once', async (t) => {
  const gates = new Map<number, ReturnType<typeof gate>>()
  let running = 0
  let max = 0
  const started: number[] = []
  const { d, feed } = dispatcher({
    concurrency: 2,
    handler: async (e) => {
      started.push(e.position)
      running += 1
      max = Math.max(max, running)
      const g = gate()
      gates.set(e.position, g)
      await g.opened
      running -= 1
    },
  })
  const fed = feed([1, 2, 3, 4, 5].map((p) => event(p, `s-${p}`)))
  await until(() => started.length === 2, 'two handlers')
  await settle()
  t.same(started, [1, 2], 'the third waits for a slot')
  gates.get(1)!.open()
  await until(() => started.length === 3, 'a freed slot to be reused')
  for (const p of [2, 3, 4, 5]) {
    await until(() => gates.has(p), `handler ${p}`)
    gates.get(p)!.open()
  }
  await fed
  await d.idle()
  t.equal(max, 2, 'reached, never exceeded')
  t.equal(d.checkpoint(), 5)
})

t.test('one stream is handled in order, even with free slots', async (t) => {
  const log: string[] = []
  const busy = new Set<string>()
  let overlap = false
  const { d, feed } = dispatcher({
    concurrency: 4,
    handler: async (e) => {
      if (busy.has(e.stream)) overlap = true
      busy.add(e.stream)
      await new Promise((r) => setTimeout(r, e.stream === 'a' ? 3 - (e.revision % 3) : 0))
      busy.delete(e.stream)
      log.push(`${e.stream}${e.revision}`)
    },
  })
  // a0 a1 b0 a2 a3 b1 ...: the later events of `a` have shorter handlers, so only ordering keeps them in line.
  const heads = { a: 0, b: 0 }
  await feed(Array.from({ length: 12 }, (_, i) => {
    const stream = i % 3 === 2 ? 'b' : 'a'
    return event(i + 1, stream, heads[stream]++)
  }))
  await d.idle()
  t.same(log.filter((x) => x.startsWith('a')), Array.from({ length: 8 }, (_, i) => `a${i}`))
  t.same(log.filter((x) => x.startsWith('b')), Array.from({ length: 4 }, (_, i) => `b${i}`))
  t.notOk(overlap, 'never two handlers of one stream at once')
  t.equal(d.checkpoint(), 12)
})

t.test('the checkpoint only moves over a contiguous run of finished events', async (t) => {
  const gates = new Map([1, 2, 3, 4, 5].map((p) => [p, gate()]))
  const done: number[] = []
  const { d, feed, checkpoints } = dispatcher({
    concurrency: 5,
    handler: async (e) => { await gates.get(e.position)!.opened; done.push(e.position) },
  })
  d.setCheckpoint(0)
  await feed([1, 2, 3, 4, 5].map((p) => event(p, `s-${p}`)))
  const finish = async (p: number) => { gates.get(p)!.open(); await until(() => done.includes(p), `event ${p}`); await settle() }
  await finish(3)
  await finish(5)
  await finish(2)
  t.equal(d.checkpoint(), 0, 'held back by event 1')
  t.same(checkpoints, [])
  await finish(1)
  t.equal(d.checkpoint(), 3, 'jumps over 1, 2, 3')
  await finish(4)
  t.equal(d.checkpoint(), 5)
  t.same(checkpoints, [3, 5], 'onCheckpoint reports each move once')
})

t.test('irrelevant events count as finished but never jump a pending one', async (t) => {
  const g = gate()
  const { d, feed, checkpoints } = dispatcher({ concurrency: 2, handler: async () => { await g.opened } })
  d.setCheckpoint(10)
  await feed([event(11, 'x-1')])
  await feed([event(12, 'other-1'), event(13, 'other-2')], false)
  await settle()
  t.equal(d.checkpoint(), 10, 'still before the pending event')
  g.open()
  await d.idle()
  t.equal(d.checkpoint(), 13)
  t.same(checkpoints, [13])
})

t.test('a failing event is retried, then given up on after maxAttempts', async (t) => {
  const calls: number[] = []
  const { d, feed, errors } = dispatcher({
    maxAttempts: 2,
    handler: async (e) => {
      calls.push(e.position)
      if (e.position === 1) throw new Error('poison')
    },
  })
  await feed([event(1, 's', 0), event(2, 's', 1)])
  await d.idle()
  t.same(errors, [{ position: 1, attempt: 1 }, { position: 1, attempt: 2 }], 'onError per failed attempt')
  t.same(calls, [1, 1, 2], 'two attempts, then the stream moves on')
  t.equal(d.checkpoint(), 2, 'the dead-lettered event does not stall the checkpoint')
})

t.test('a transient failure is retried until it succeeds', async (t) => {
  let attempts = 0
  const { d, feed, errors } = dispatcher({
    maxAttempts: 5,
    handler: async () => { attempts += 1; if (attempts === 1) throw new Error('transient') },
  })
  await feed([event(1, 's')])
  await d.idle()
  t.equal(attempts, 2)
  t.same(errors, [{ position: 1, attempt: 1 }])
  t.equal(d.checkpoint(), 1)
})

t.test('while stopping, a failing event stays unfinished', async (t) => {
  const calls: number[] = []
  const { d, feed, errors, checkpoints } = dispatcher({
    concurrency: 2,
    isStopping: () => true,
    handler: async (e) => { calls.push(e.position); if (e.position === 1) throw new Error('shutting down') },
  })
  d.setCheckpoint(0)
  await feed([event(1, 's-1'), event(2, 's-2')])
  await d.idle()
  t.same(calls.sort(), [1, 2], 'no retry of the failed event')
  t.same(errors, [], 'not reported as a failure: it will be handled again after a restart')
  t.equal(d.checkpoint(), 0, 'the checkpoint does not pass it, though event 2 finished')
  t.same(checkpoints, [])
})

t.test('while stopping, the events behind an abandoned one in its stream are not handled', async (t) => {
  const calls: number[] = []
  const { d, feed } = dispatcher({
    concurrency: 2,
    isStopping: () => true,
    handler: async (e) => { calls.push(e.position); if (e.position === 1) throw new Error('shutting down') },
  })
  await feed([event(1, 's', 0), event(2, 's', 1)])
  await d.idle()
  t.same(calls, [1], 'event 2 must not run before event 1 has been handled')
  t.equal(d.checkpoint(), 0)
})
