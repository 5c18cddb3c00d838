/**
 * Issue 31: extraction on customer input cannot stall the service or another tenant. Fails on the code before the
 * worker pool: there the selector froze the process (/healthz never answered at N=1500) and the regex flood held the
 * process's two regex workers for ~50 s ahead of a victim.
 */
import t from 'tap'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { startFixtureSite } from '../fixtures/site.js'
import { startService } from '../helpers/service.js'
import { warmCpuPool } from '../../fetchers/workers/index.js'

const nested = (n: number) => `<html><body>${'<div>'.repeat(n)}x${'</div>'.repeat(n)}</body></html>`
const html = (body: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
  res.end(body)
}
const site = await startFixtureSite({
  '/nested-1500': html(nested(1500)),
  '/nested-300': html(nested(300)),
  '/aaaa': html(`<p>${'a'.repeat(20_000)}</p>`),
  '/victim': html('<p>Price: 42 EUR</p>'),
})
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`] })
t.teardown(async () => { await svc.close(); await site.close() })
await warmCpuPool()
const hostile = await svc.createOrg('pro')
const victim = await svc.createOrg('pro')
const HAS_SELECTOR = 'div div div div div div:has(div div div div)'

/**
 * Polls /healthz every 50 ms while `work` runs; answers the slowest answer's latency. Bounds are loose (1 s): the
 * in-process service shares a loaded CI machine with the test; before the pool /healthz did not answer at all.
 */
const healthWhile = async <T>(work: Promise<T>): Promise<{ value: T; worstMs: number }> => {
  let worstMs = 0
  let done = false
  const polling = (async () => {
    while (!done) {
      const started = performance.now()
      await fetch(`${svc.base}/healthz`)
      worstMs = Math.max(worstMs, performance.now() - started)
      await new Promise((r) => setTimeout(r, 50))
    }
  })()
  const value = await work.finally(() => { done = true })
  await polling
  return { value, worstMs }
}
const submit = async (key: string, path: string, hooks: unknown[]) => {
  const answer = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `${site.origin}${path}`, extraction: { hooks } } })
  if (answer.status !== 202) throw new Error(answer.text)
  return answer.body.job_id as string
}

t.test('the :has selector on 1,500 nested divs: /healthz answers throughout, the hooks report the depth cap', async (t) => {
  const jobId = await submit(hostile.key, '/nested-1500', [{ hook_id: 'h', type: 'css', selector: HAS_SELECTOR }])
  const { value: result, worstMs } = await healthWhile(svc.waitForResult(hostile.key, jobId, 120_000))
  t.ok(worstMs < 1_000, `worst /healthz latency ${worstMs.toFixed(0)} ms`)
  t.equal(result.body.status, 'succeeded')
})

t.test('the same selector under the depth cap runs until its worker\'s deadline: the job alone fails with extraction_timeout', async (t) => {
  const jobId = await submit(hostile.key, '/nested-300', [{ hook_id: 'h', type: 'css', selector: HAS_SELECTOR }])
  const { value: result, worstMs } = await healthWhile(svc.waitForResult(hostile.key, jobId, 120_000))
  t.ok(worstMs < 1_000, `worst /healthz latency ${worstMs.toFixed(0)} ms`)
  t.equal(result.body.status, 'failed')
  const job = await svc.api('GET', `/v1/jobs/${jobId}`, { key: hostile.key })
  t.equal(job.body.failure_reason, 'extraction_timeout', job.text)
})

t.test('a regex flood of another tenant does not hold up a victim\'s job', async (t) => {
  const patterns = ['(a|a)*$', '(a|aa)+$', '(?:a|a?)+$', '(a|b|ab)*c', '(a?){30}a{30}', '[\\s\\S]*?[\\s\\S]*?[\\s\\S]*?[\\s\\S]*?x']
  const hooks = Array.from({ length: 25 }, (_, i) => ({ hook_id: `p${i}`, type: 'regex', pattern: patterns[i % patterns.length] }))
  const flood = await Promise.all(Array.from({ length: 4 }, () => submit(hostile.key, '/aaaa', hooks)))
  const started = performance.now()
  const jobId = await submit(victim.key, '/victim', [{ hook_id: 'price', type: 'regex', pattern: 'Price: (\\d+)', group: 1 }])
  const { value: result, worstMs } = await healthWhile(svc.waitForResult(victim.key, jobId, 120_000))
  const victimMs = performance.now() - started
  t.equal(result.body.status, 'succeeded')
  // Before: the victim's regex queued behind 100 catastrophic patterns on two workers (52 s in the report).
  t.ok(victimMs < 20_000, `the victim's job took ${victimMs.toFixed(0)} ms`)
  t.ok(worstMs < 1_000, `worst /healthz latency ${worstMs.toFixed(0)} ms`)
  for (const id of flood) await svc.waitForResult(hostile.key, id, 120_000)
})
