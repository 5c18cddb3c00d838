import t from 'tap'
import { defaultPerKey, FairLanes, withReserve } from '../../fetchers/fair-lanes.js'

/** Lets every pending promise callback run. */
const settle = async () => { for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r)) }

t.test('a freed slot goes to the next organization in turn, not to the one that queued first', async (t) => {
  const lanes = new FairLanes({ slots: 2, perKey: 2 })
  t.ok(lanes.tryAcquire('hostile'))
  t.ok(lanes.tryAcquire('hostile'))
  const granted: string[] = []
  const wait = (key: string, label: string) => lanes.acquire(key).then(() => { granted.push(label) })
  // A thousand of one organization's jobs queued before the victim's single one.
  const waits = Array.from({ length: 1000 }, (_, i) => wait('hostile', `hostile-${i}`))
  const victim = wait('victim', 'victim')
  lanes.release('hostile')
  await victim
  t.same(granted, ['victim'], 'the first freed slot goes to the victim, ahead of 1000 queued before it')
  lanes.release('hostile')
  lanes.release('victim')
  await settle()
  t.same(granted, ['victim', 'hostile-0', 'hostile-1'], 'then the hostile lane goes on')
  lanes.rejectAll(new Error('stop'))
  await Promise.allSettled(waits)
})

t.test('lanes are served in turn, one slot each', async (t) => {
  const lanes = new FairLanes({ slots: 1, perKey: 1 })
  t.ok(lanes.tryAcquire('x'))
  const granted: string[] = []
  const wait = (key: string) => lanes.acquire(key).then(() => { granted.push(key) })
  const waits = ['a', 'a', 'a', 'b', 'c', 'c'].map(wait)
  lanes.release('x')
  for (let i = 0; i < 5; i++) {
    await settle()
    lanes.release(granted.at(-1)!)
  }
  await Promise.all(waits)
  t.same(granted, ['a', 'b', 'c', 'a', 'c', 'a'])
})

t.test('one key holds at most perKey slots, even while the others are free', async (t) => {
  const lanes = new FairLanes({ slots: 4, perKey: 2 })
  t.ok(lanes.tryAcquire('a'))
  t.ok(lanes.tryAcquire('a'))
  t.notOk(lanes.tryAcquire('a'), 'a third slot is refused to the same key')
  let third = false
  const waiting = lanes.acquire('a').then(() => { third = true })
  await settle()
  t.equal(third, false, 'a third waits although two slots are free')
  t.ok(lanes.tryAcquire('b'), 'another key gets a free slot at once')
  lanes.release('a')
  await waiting
  t.equal(lanes.heldBy('a'), 2)
})

t.test('a waiter whose signal aborts leaves its lane; rejectAll fails the rest', async (t) => {
  const lanes = new FairLanes({ slots: 1, perKey: 1 })
  t.ok(lanes.tryAcquire('a'))
  const controller = new AbortController()
  const aborted = lanes.acquire('b', controller.signal)
  const other = lanes.acquire('c')
  controller.abort(new Error('gone'))
  await t.rejects(aborted, /gone/)
  lanes.release('a')
  await other
  t.equal(lanes.heldBy('c'), 1, 'the slot passed over the aborted waiter')
  const last = lanes.acquire('d')
  lanes.rejectAll(new Error('closing'))
  await t.rejects(last, /closing/)
})

t.test('run releases its slot whether the work succeeds or throws', async (t) => {
  const lanes = new FairLanes({ slots: 1, perKey: 1 })
  t.equal(await lanes.run('a', async () => 7), 7)
  await t.rejects(lanes.run('a', async () => { throw new Error('boom') }), /boom/)
  t.ok(lanes.tryAcquire('b'), 'no slot is left held')
})

t.test('by default a key may hold all of a pool of two, otherwise all but a quarter', async (t) => {
  t.equal(defaultPerKey(1), 1)
  t.equal(defaultPerKey(2), 2)
  t.equal(defaultPerKey(16), 12)
  t.equal(defaultPerKey(32), 24)
})

t.test('a reserve on top: one key alone keeps all its slots, and the reserve serves only the others', async (t) => {
  const limits = withReserve(16)
  t.same(limits, { slots: 20, perKey: 16 })
  const lanes = new FairLanes(limits)
  for (let i = 0; i < 16; i++) t.ok(lanes.tryAcquire('a'), `a's slot ${i + 1}`)
  t.notOk(lanes.tryAcquire('a'), 'a holds its most')
  for (let i = 0; i < 4; i++) t.ok(lanes.tryAcquire('b'), `the reserve's slot ${i + 1} goes to b`)
  t.notOk(lanes.tryAcquire('c'), 'every slot is held')
})
