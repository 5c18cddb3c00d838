import t from 'tap'
import { FairWorkerPool } from '../../fetchers/workers/fair-pool.js'

/** The selector of issue 31 over nested divs: seconds to minutes of CPU in one uninterruptible call. */
const freezing = (org: string, pool: FairWorkerPool, deadlineMs: number) => pool.run(org, {
  kind: 'extract',
  input: {
    spec: { hooks: [{ hook_id: 'h', type: 'css', selector: 'div div div div div div:has(div div div div)', all_matches: false, max_results: 1 }] },
    page: { url: 'https://x.example/', html: `${'<div>'.repeat(300)}${'</div>'.repeat(300)}` },
  },
}, deadlineMs)
const quick = (org: string, pool: FairWorkerPool) => pool.run(org, {
  kind: 'extract',
  input: { spec: { hooks: [{ hook_id: 'h', type: 'css', selector: 'p', all_matches: false, max_results: 1 }] }, page: { url: 'https://x.example/', html: '<p>fine</p>' } },
}, 30_000)

const pool = new FairWorkerPool({ size: 2 })
t.teardown(() => pool.close())

t.test('a task past its deadline ends with timeout alone; its worker is replaced and the next task runs', async (t) => {
  t.equal(pool.perOrgLimit, 1, 'an organization holds at most half the pool')
  await pool.warm() // worker start-up is not what is measured
  const started = performance.now()
  const slow = await freezing('hostile', pool, 500)
  t.match(slow, { ok: false, reason: 'timeout', message: /deadline of 500 ms/ })
  t.ok(performance.now() - started < 5_000, 'ended at its deadline, not when the selector would have finished')
  const next = await quick('hostile', pool)
  t.match(next.ok && JSON.parse(new TextDecoder().decode(next.value)), { hooks: [{ status: 'ok', result: 'fine' }] }, 'a fresh worker serves the same organization next')
})

t.test('a tenant with many slow tasks queued does not delay another tenant\'s task behind them', async (t) => {
  await pool.warm()
  const hostile = Array.from({ length: 4 }, () => freezing('hostile', pool, 1_500))
  const started = performance.now()
  const victim = await quick('victim', pool)
  const victimMs = performance.now() - started
  t.match(victim, { ok: true })
  // First come first served would put the victim behind 4 × 1.5 s of hostile work (one org holds one of two workers).
  t.ok(victimMs < 1_500, `the victim's task took ${victimMs.toFixed(0)} ms`)
  t.same((await Promise.all(hostile)).map((o) => o.ok ? 'ok' : o.reason), ['timeout', 'timeout', 'timeout', 'timeout'])
})

t.test('lanes are served round-robin: a later tenant is not served after every task of an earlier one', async (t) => {
  const order: string[] = []
  const tasks = [
    ...Array.from({ length: 4 }, (_, i) => quick('a', pool).then(() => order.push(`a${i}`))),
    ...Array.from({ length: 2 }, (_, i) => quick('b', pool).then(() => order.push(`b${i}`))),
  ]
  await Promise.all(tasks)
  t.ok(order.indexOf('b1') < order.indexOf('a3'), `order ${order.join(' ')}`)
})
