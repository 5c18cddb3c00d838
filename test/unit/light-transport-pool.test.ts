import t from 'tap'
import { makeTransportPool } from '../../fetchers/light/transport-pool.js'

/** Fake transports that count their closing, and timers fired by hand. */
const setUp = (maxIdle = 2) => {
  let made = 0
  const closed: number[] = []
  const timers = new Map<number, () => void>()
  let nextTimer = 0
  const pool = makeTransportPool({
    create: async () => { const id = ++made; return { id, close: async () => { closed.push(id) } } },
    idleMs: 30_000,
    maxIdle,
    setTimer: (fire) => { const id = nextTimer++; timers.set(id, fire); return () => timers.delete(id) },
  })
  const fireTimers = () => { const due = [...timers.values()]; timers.clear(); for (const fire of due) fire() }
  const settle = () => new Promise((resolve) => setImmediate(resolve))
  return { pool, closed, fireTimers, settle, made: () => made }
}

t.test('one organization shares one transport; another organization gets its own', async (t) => {
  const { pool, made } = setUp()
  const [a1, a2, b] = await Promise.all([pool.lease('org-a'), pool.lease('org-a'), pool.lease('org-b')])
  t.equal(a1.transport, a2.transport, 'concurrent jobs of one organization share the transport')
  t.not(a1.transport, b.transport, 'organizations never share a transport')
  t.equal(made(), 2)
})

t.test('an idle transport is closed when its timer fires, and the next job gets a new one', async (t) => {
  const { pool, closed, fireTimers, settle, made } = setUp()
  const first = await pool.lease('org-a')
  const second = await pool.lease('org-a')
  first.release()
  fireTimers()
  await settle()
  t.same(closed, [], 'still leased by one job: not closed')
  second.release()
  second.release()
  fireTimers()
  await settle()
  t.same(closed, [1], 'closed once the last job released it (a second release counts once)')
  const third = await pool.lease('org-a')
  t.not(third.transport, first.transport)
  t.equal(made(), 2)
})

t.test('a lease taken before the idle timer fires keeps the transport open', async (t) => {
  const { pool, closed, fireTimers, settle } = setUp()
  ;(await pool.lease('org-a')).release()
  const again = await pool.lease('org-a')
  fireTimers()
  await settle()
  t.same(closed, [])
  again.release()
})

t.test('beyond maxIdle idle transports, the least recently used are closed first', async (t) => {
  const { pool, closed, settle } = setUp(2)
  for (const org of ['org-a', 'org-b', 'org-c']) (await pool.lease(org)).release()
  await settle()
  t.same(closed, [1], 'org-a, the least recently used, is closed')
  const busy = await pool.lease('org-b')
  ;(await pool.lease('org-d')).release()
  await settle()
  t.same(closed, [1], 'a leased transport does not count as idle')
  busy.release()
  await settle()
  t.same(closed, [1, 3], 'once org-b is idle again, org-c (now the least recently used) is closed')
})

t.test('a transport that could not be built fails the lease and is tried again next time', async (t) => {
  let attempts = 0
  const pool = makeTransportPool({
    create: async () => { attempts += 1; if (attempts === 1) throw new Error('no certificate store'); return { close: async () => {} } },
    idleMs: 1000, maxIdle: 1, setTimer: () => () => {},
  })
  await t.rejects(pool.lease('org-a'), /no certificate store/)
  const lease = await pool.lease('org-a')
  t.ok(lease.transport)
  t.equal(attempts, 2)
})

t.test('close closes every transport', async (t) => {
  const { pool, closed } = setUp()
  await pool.lease('org-a')
  ;(await pool.lease('org-b')).release()
  await pool.close()
  t.same(closed.sort(), [1, 2])
})
