import t from 'tap'
import { Either } from 'effect'
import { fold } from '../../domain/decider.js'
import { contentMonitorDecider, type ContentMonitorCommand, type RunResult } from '../../domain/content-monitor/decider.js'
import type { ContentMonitorEvent, Rule } from '../../domain/content-monitor/events.js'
import { AUTO_DISABLE_AFTER_FAILURES } from '../../domain/content-monitor/limits.js'
import { needleIn, observe } from '../../domain/content-monitor/rules.js'

const MONITOR = 'm1'
const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString()

/** A monitor created at minute 0 with `rule`: `apply` decides a command on its history so far and records the events. */
const createdMonitor = (rule: Rule) => {
  const events: ContentMonitorEvent[] = []
  const apply = (command: ContentMonitorCommand) => {
    const decided = contentMonitorDecider.decide(command, fold(contentMonitorDecider, events))
    if (Either.isLeft(decided)) throw decided.left
    events.push(...decided.right)
    return decided.right
  }
  apply({
    _tag: 'CreateContentMonitor', monitor_id: MONITOR, user_id: 'u', org_id: 'o', next_run_at: at(5), now: at(0),
    fields: { url: 'https://example.com/', backend: 'httpx', frequencyMinutes: 5, rule },
  })
  return { events, apply }
}

/** Runs the decider through creation and one run per page, answering each run's outcome (and the events). */
const runSequence = (rule: Rule, pages: readonly ({ body: string; status?: number } | 'fail')[]) => {
  const { apply } = createdMonitor(rule)
  return pages.map((page, i) => {
    const run_id = `r${i}`
    apply({ _tag: 'RequestRun', monitor_id: MONITOR, run_id, scheduled_at: at(i + 1), forced: true, next_run_at: null, now: at(i + 1) })
    apply({ _tag: 'StartRun', monitor_id: MONITOR, run_id, now: at(i + 1) })
    let result: RunResult
    if (page === 'fail') result = { _tag: 'Failed', error_code: 'network_error', error_message: 'refused', status_code: null }
    else {
      const observed = observe({ body: page.body, statusCode: page.status ?? 200, contentLength: page.body.length, capturedAt: at(i + 1) })
      result = { _tag: 'Observed', snapshot: observed.snapshot, needle_present: needleIn(rule, observed.text) }
    }
    const finished = apply({ _tag: 'FinishRun', monitor_id: MONITOR, run_id, result, next_run_at: at(i + 6), now: at(i + 1) })
    return { outcome: finished[0]!._tag === 'ContentMonitorRunFinished' ? (finished[0] as { outcome: string }).outcome : 'none', events: finished }
  })
}

const ABSENT = { body: '<html><body><p>Out of stock</p></body></html>' }
const PRESENT = { body: '<html><body><p>Now <b>IN STOCK</b>, order today</p></body></html>' }

t.test('edge-triggered text rules over absent, present, present, absent, present', async (t) => {
  const sequence = [ABSENT, PRESENT, PRESENT, ABSENT, PRESENT]
  const table: [string, Rule, string[]][] = [
    ['text_appeared fires on each absent→present edge only', { type: 'text_appeared', config: { needle: 'in stock', caseSensitive: false } },
      ['succeeded', 'triggered', 'succeeded', 'succeeded', 'triggered']],
    ['text_disappeared fires on the present→absent edge only', { type: 'text_disappeared', config: { needle: 'in stock', caseSensitive: false } },
      ['succeeded', 'succeeded', 'succeeded', 'triggered', 'succeeded']],
    ['caseSensitive: "in stock" is never in "IN STOCK"', { type: 'text_appeared', config: { needle: 'in stock', caseSensitive: true } },
      ['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded']],
    ['caseSensitive with the exact case fires like the insensitive rule', { type: 'text_appeared', config: { needle: 'IN STOCK', caseSensitive: true } },
      ['succeeded', 'triggered', 'succeeded', 'succeeded', 'triggered']],
    ['any_change fires on every content change, not while it holds', { type: 'any_change', config: {} },
      ['succeeded', 'triggered', 'succeeded', 'triggered', 'triggered']],
  ]
  for (const [name, rule, expected] of table) t.same(runSequence(rule, sequence).map((r) => r.outcome), expected, name)
})

t.test('a first run that already sees the needle is the baseline, not an edge', async (t) => {
  t.same(runSequence({ type: 'text_appeared', config: { needle: 'in stock' } }, [PRESENT, PRESENT, ABSENT]).map((r) => r.outcome), ['succeeded', 'succeeded', 'succeeded'])
})

t.test('failed runs neither fire nor break an edge: absent, fail, present still fires', async (t) => {
  t.same(runSequence({ type: 'text_appeared', config: { needle: 'in stock' } }, [ABSENT, 'fail', PRESENT]).map((r) => r.outcome), ['succeeded', 'failed', 'triggered'])
})

t.test('status_code_change compares runs that got an answer', async (t) => {
  const page = (status: number) => ({ body: ABSENT.body, status })
  const runs = runSequence({ type: 'status_code_change', config: {} }, [page(200), page(200), 'fail', page(503), page(503), page(200)])
  t.same(runs.map((r) => r.outcome), ['succeeded', 'succeeded', 'failed', 'triggered', 'succeeded', 'triggered'])
  t.match(runs[3]!.events[0], { change_summary: 'status code changed from 200 to 503' })
})

t.test(`auto-disable after ${AUTO_DISABLE_AFTER_FAILURES} consecutive failures, once; a success in between starts over`, async (t) => {
  const fails = (n: number) => Array.from({ length: n }, () => 'fail' as const)
  const interrupted = runSequence({ type: 'any_change', config: {} }, [...fails(AUTO_DISABLE_AFTER_FAILURES - 1), ABSENT, ...fails(AUTO_DISABLE_AFTER_FAILURES - 1)])
  t.notOk(interrupted.some((r) => r.events.some((e) => e._tag === 'ContentMonitorAutoDisabled')))
  const runs = runSequence({ type: 'any_change', config: {} }, fails(AUTO_DISABLE_AFTER_FAILURES + 1))
  const disabledAt = runs.findIndex((r) => r.events.some((e) => e._tag === 'ContentMonitorAutoDisabled'))
  t.equal(disabledAt, AUTO_DISABLE_AFTER_FAILURES - 1)
  t.notOk(runs[AUTO_DISABLE_AFTER_FAILURES]!.events.some((e) => e._tag === 'ContentMonitorAutoDisabled'), 'a disabled monitor is not disabled again')
})

t.test('snapshots come from the detection normalization: hidden parts and whitespace do not change the hash', async (t) => {
  const a = observe({ body: '<p>Price  10</p><script>nonce=1</script>', statusCode: 200, contentLength: 1, capturedAt: at(0) })
  const b = observe({ body: '<p>Price\n10</p><script>nonce=2</script>', statusCode: 200, contentLength: 1, capturedAt: at(0) })
  t.equal(a.snapshot.hash, b.snapshot.hash)
  t.match(a.snapshot.hash, /^n\d+:[0-9a-f]{64}$/)
  t.equal(a.snapshot.preview, 'Price 10')
})

t.test('a scheduled run left pending when a later instant is requested ends skipped (missed) in the same append', async (t) => {
  const { events, apply } = createdMonitor({ type: 'any_change', config: {} })
  const request = (run_id: string, instant: number, now: number, forced = false) =>
    apply({ _tag: 'RequestRun', monitor_id: MONITOR, run_id, scheduled_at: at(instant), forced, next_run_at: at(instant + 5), now: at(now) })
  // Asked for ahead at minute 1 for minute 5; a forced run at minute 2 is running.
  request('ahead', 5, 1)
  request('forced', 2, 2, true)
  apply({ _tag: 'StartRun', monitor_id: MONITOR, run_id: 'forced', now: at(2) })
  t.same(request('ahead', 5, 3).map((e) => e._tag), [], 'asking for the same instant again changes nothing')
  // The scheduler comes back at minute 11: its catch-up run (minute 10) takes the place of the one asked for ahead.
  const catchUp = request('catch-up', 10, 11)
  t.same(catchUp.map((e) => [e._tag, (e as { run_id: string }).run_id]), [['ContentMonitorRunFinished', 'ahead'], ['ContentMonitorRunRequested', 'catch-up']])
  t.match(catchUp[0], { outcome: 'skipped', error_code: 'missed', next_run_at: at(15), completed_at: at(11) })
  const state = fold(contentMonitorDecider, events)
  t.ok(state.exists && state.runs.get('ahead') === 'finished' && state.runs.get('forced') === 'running', 'a forced run is never superseded')
  t.ok(state.exists && state.handled_up_to === at(5), 'the missed instant counts as handled')
  t.same(request('catch-up', 10, 12).map((e) => e._tag), [], 'a repeated catch-up request closes nothing twice')
})
