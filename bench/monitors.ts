/**
 * bench:monitors — 1,000 monitors (`* * * * *`, detection mode text) firing at one minute's instant on the embedded
 * profile (every role in one process) against a local fixture site, beside plain light jobs through the API of the
 * same process in the same run. The process runs on a clock that is real time shifted ahead, so a minute's instant
 * starts 3 s after setup (no waiting for the wall clock's minute). Reports:
 * - fire delay (`fired_at` − scheduled instant) and start delay (the run's job minted − scheduled), p50 and p99;
 * - detection throughput: runs of that instant evaluated (baseline recorded) per second, from the instant to the last;
 * - the plain light-job rate (submit to result) and `ratio: X.XX` = detection throughput ÷ light-job rate.
 * The monitors are spread over several Enterprise organizations (BENCH_ORGS) so one instant's jobs stay under the
 * plan's 500 concurrent jobs; with one organization half the runs would be `skipped_quota`.
 */
import { randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import { createMonitor } from '../commands/monitors.js'
import { createApiKey, DEFAULT_KEY_LIMITS } from '../commands/orgs.js'
import { decodeEvent } from '../domain/events.js'
import type { MonitorEvent } from '../domain/monitor/events.js'
import { validateMonitorCreate } from '../domain/monitor/request.js'
import { PLANS } from '../domain/plans.js'
import { isTimeZone } from '../domain/schedule/schedule.js'
import { SCOPES } from '../domain/scopes.js'
import { STREAMS } from '../domain/streams.js'
import type { ClockService } from '../ports/clock.js'
import { EventStore } from '../ports/event-store.js'
import { MONITOR_RUNS } from '../projections/monitors.js'
import { JOBS as JOB_DOCS } from '../projections/jobs.js'
import { countDocs } from '../projections/projection.js'
import { startFixtureSite } from '../test/fixtures/site.js'
import { startService, waitFor } from '../test/helpers/service.js'
import { fmt, percentile, pool } from './stats.js'

const MONITORS = Number(process.env.BENCH_MONITORS ?? 1000)
const ORGS = Number(process.env.BENCH_ORGS ?? 4)
const JOBS = Number(process.env.BENCH_JOBS ?? 300)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)
const MINUTE = 60_000

const site = await startFixtureSite()

/**
 * Real time, shifted, and frozen while the monitors are created (so none fires early): `startAt` unfreezes it at an
 * instant of our choosing, so the bench reaches a minute's instant 3 s after setup instead of waiting for the wall
 * clock's next minute. Sleepers re-check at least every 20 ms. (A manual clock moved by a timer would not do: a busy
 * event loop starves the timer, and timestamps would freeze exactly while the service is busy.)
 */
let frozenAt: number | null = Math.floor(Date.now() / MINUTE) * MINUTE + 1_000
let shift = 0
const nowMs = () => frozenAt ?? Date.now() + shift
const clock: ClockService = {
  now: () => new Date(nowMs()),
  sleepUntil: (instant) => Effect.suspend(function wait(): Effect.Effect<void> {
    const remaining = instant.getTime() - nowMs()
    return remaining <= 0 ? Effect.void : Effect.sleep(Math.min(remaining, 20)).pipe(Effect.zipRight(Effect.suspend(wait)))
  }),
}
const startAt = (instant: number) => {
  shift = instant - Date.now()
  frozenAt = null
}
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`], clock, env: { FETCHER_CONCURRENCY: String(CONCURRENCY), SCHEDULER_POLL_MS: '50' } })
const metadata = { correlation_id: 'bench', causation_id: null, actor: 'bench' }

const orgs = await Promise.all(Array.from({ length: ORGS }, () => svc.createOrg('enterprise')))
const monitorIds: string[] = []
const ctx = { allowlist: svc.config.ssrfAllowlist, isTimeZone }
await Promise.all(orgs.map((org, o) => (async () => {
  for (let i = o; i < MONITORS; i += ORGS) {
    const checked = validateMonitorCreate({
      name: `bench ${i}`, cron: '* * * * *', timezone: 'UTC', job_type: 'light', target_url: `${site.origin}/page`, detection: { mode: 'text' },
    }, ctx)
    if (!checked.ok) throw new Error(`invalid monitor: ${JSON.stringify(checked.errors)}`)
    const created = await svc.run(createMonitor(checked.fields, { org_id: org.org_id, plan: PLANS.enterprise, now: clock.now(), metadata }))
    monitorIds.push(created.monitor_id)
  }
})()))

// Every monitor's first instant is the minute after the frozen time: run real time from 3 s before it.
const instant = Math.ceil(nowMs() / MINUTE) * MINUTE
startAt(instant - 3_000)

interface RunTimes { readonly fired: number; readonly minted: number | null; readonly evaluated: number | null }
const runsAtInstant = () => svc.run(Effect.forEach(monitorIds, (id) => Effect.gen(function* () {
  const history = yield* (yield* EventStore).readStream(STREAMS.monitor.stream(id))
  const events = history.map((r) => decodeEvent(r.type, r.data) as MonitorEvent)
  const fired = events.find((e) => e._tag === 'MonitorRunFired' && Date.parse(e.scheduled_for) === instant)
  if (fired?._tag !== 'MonitorRunFired') return null
  const runId = fired.run_id
  const minted = events.find((e) => e._tag === 'MonitorRunMinted' && e.run_id === runId)
  const evaluated = events.find((e) => (e._tag === 'MonitorBaselineRecorded' || e._tag === 'MonitorRunEvaluated' || e._tag === 'ChangeDetected') && e.run_id === runId)
  const settled = events.find((e) => (e._tag === 'MonitorRunCompleted' || e._tag === 'MonitorRunSkipped') && e.run_id === runId)
  const at = (iso: string | undefined) => (iso === undefined ? null : Date.parse(iso))
  return {
    fired: Date.parse(fired.fired_at),
    minted: minted?._tag === 'MonitorRunMinted' ? at(minted.minted_at) : null,
    evaluated: evaluated?._tag === 'MonitorBaselineRecorded' ? at(evaluated.recorded_at) : evaluated?._tag === 'MonitorRunEvaluated' ? at(evaluated.checked_at) : evaluated?._tag === 'ChangeDetected' ? at(evaluated.detected_at) : null,
    settled: settled !== undefined,
    delivered: settled?._tag === 'MonitorRunCompleted' && settled.status === 'delivered',
  }
}), { concurrency: 16 }))

// Cheap polling (one count on the runs' read model) while the instant is busy; the streams are read once it settled.
const SETTLED = ['delivered', 'blocked', 'failed', 'error', 'skipped_quota', 'skipped_not_allowed']
await waitFor(async () => (await svc.run(countDocs(MONITOR_RUNS, { status: { $in: SETTLED } }))) >= MONITORS, 30 * MINUTE, 1_000)
let runs: Awaited<ReturnType<typeof runsAtInstant>> = []
await waitFor(async () => {
  runs = await runsAtInstant()
  const present = runs.filter((r) => r !== null)
  return present.length === MONITORS && present.every((r) => r.settled && (!r.delivered || r.evaluated !== null))
}, 5 * MINUTE, 1_000)
const fired = runs.filter((r): r is NonNullable<typeof r> => r !== null)
const evaluated = fired.filter((r) => r.evaluated !== null) as (RunTimes & { evaluated: number })[]
const lastEvaluated = Math.max(...evaluated.map((r) => r.evaluated))
const detectionRate = evaluated.length / ((lastEvaluated - instant) / 1000)

const fireDelays = fired.map((r) => r.fired - instant)
const startDelays = fired.filter((r) => r.minted !== null).map((r) => (r.minted as number) - instant)
console.log(`bench:monitors  monitors=${MONITORS} (cron * * * * *, detection text) orgs=${ORGS} fetcher concurrency=${CONCURRENCY}`)
console.log(`fire delay (fired − scheduled)   p50 ${fmt(percentile(fireDelays, 50))} ms  p99 ${fmt(percentile(fireDelays, 99))} ms  (${fired.length} fired)`)
console.log(`start delay (job minted − scheduled)  p50 ${fmt(percentile(startDelays, 50))} ms  p99 ${fmt(percentile(startDelays, 99))} ms  (${startDelays.length} minted, ${fired.length - startDelays.length} skipped)`)
console.log(`detection  ${evaluated.length} runs evaluated in ${fmt((lastEvaluated - instant) / 1000)} s: ${fmt(detectionRate)} runs/s`)

// Plain light jobs through the API of the same process, on a quiet service: time stops (no more instants fire) and
// the runs of later minutes that already started finish first.
frozenAt = nowMs()
await waitFor(async () => (await svc.run(countDocs(JOB_DOCS, { status: { $in: ['queued', 'running'] } }))) === 0, 10 * MINUTE, 1_000)
const key = (await svc.run(createApiKey({
  org_id: orgs[0]!.org_id, name: 'bench', scopes: SCOPES, limits: { ...DEFAULT_KEY_LIMITS, rate_limit_rpm: 1_000_000, daily_quota: 100_000_000 }, expires_at: null, metadata,
}))).secret
await waitFor(async () => (await svc.api('GET', '/v1/jobs', { key })).status === 200, 30_000)
let resets = 0
const lightJobs = async (count: number) => {
  const started = performance.now()
  await pool(count, CONCURRENCY, async () => {
    // Idempotent on its token, so a submit whose connection was reset is sent again (and counted).
    const body = { job_type: 'light', target_url: `${site.origin}/page`, idempotency_token: randomUUID() }
    let submitted = await svc.api('POST', '/v1/jobs', { key, body }).catch(() => null)
    for (let attempt = 0; submitted === null && attempt < 3; attempt++) {
      resets++
      submitted = await svc.api('POST', '/v1/jobs', { key, body }).catch(() => null)
    }
    if (submitted === null) throw new Error('submit: connection reset 4 times')
    if (submitted.status !== 202) throw new Error(`submit answered ${submitted.status}: ${submitted.text}`)
    for (;;) {
      // A poll is a GET: one whose kept-alive connection the server closed meanwhile is simply asked again.
      const result = await svc.api('GET', `/v1/jobs/${submitted.body.job_id}/result`, { key }).catch(() => { resets++; return { status: 409, text: '' } })
      if (result.status === 200) break
      if (result.status !== 409) throw new Error(`result poll answered ${result.status}: ${result.text}`)
      await new Promise((r) => setTimeout(r, 5))
    }
  })
  return count / ((performance.now() - started) / 1000)
}
await lightJobs(Math.min(30, JOBS)) // warm-up
const lightRate = await lightJobs(JOBS)

console.log(`plain light jobs (same process, API submit to result, concurrency ${CONCURRENCY})  ${fmt(lightRate)} jobs/s  (${resets} requests sent again after a connection reset)`)
console.log(`ratio: ${(detectionRate / lightRate).toFixed(2)}`)
await svc.close()
await site.close()
process.exit(0)
