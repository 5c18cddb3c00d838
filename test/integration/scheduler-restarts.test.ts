import t from 'tap'
import { createMonitor, loadMonitor } from '../../commands/monitors.js'
import { createOrg } from '../../commands/orgs.js'
import { decodeEvent } from '../../domain/events.js'
import { validateMonitorCreate } from '../../domain/monitor/request.js'
import { PLANS } from '../../domain/plans.js'
import { STREAMS } from '../../domain/streams.js'
import { makeManualClock } from '../../infra/clock/manual.js'
import { loadConfig } from '../../infra/config.js'
import { startProcess, type RunningProcess } from '../../infra/process.js'
import { EventStore } from '../../ports/event-store.js'
import { Effect } from 'effect'
import { tempDataDir, waitFor } from '../helpers/service.js'

/**
 * A simulated day of a five-minute monitor while the scheduler process is stopped and started again and again (some
 * restarts after downtime): every instant is fired exactly once or counted as missed by the catch-up run after it.
 * A downtime is real only if the clock passes a scheduled instant while no scheduler runs: the restarted scheduler
 * then fires the latest instant reached once, with the skipped ones counted as `missed`. A downtime shorter than a
 * period skips nothing, so no catch-up run follows it.
 */
const silent = { info: () => {}, warn: () => {}, error: () => {} }
const dataDir = tempDataDir('sched')
const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', SSRF_ALLOWLIST: '127.0.0.1:9', SCHEDULER_POLL_MS: '5' })
const START = Date.parse('2026-03-28T12:00:30Z')
const clock = makeManualClock(new Date(START))
const start = () => startProcess(config, ['projector', 'scheduler'], silent, { clock })
const metadata = { correlation_id: 'test', causation_id: null, actor: 'test' }

t.test('restarts over a simulated day: zero missing and zero duplicate runs', async (t) => {
  let running: RunningProcess = await start()
  const { org_id } = await running.run(createOrg({ name: 'o', plan: 'enterprise', metadata }))
  const checked = validateMonitorCreate({ name: 'm', cron: '*/5 * * * *', timezone: 'Europe/Berlin', job_type: 'light', target_url: 'http://127.0.0.1:9/x', overlap_policy: 'allow' }, { allowlist: config.ssrfAllowlist, isTimeZone: () => true })
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors))
  const { monitor_id } = await running.run(createMonitor(checked.fields, { org_id, plan: PLANS.enterprise, now: new Date(START), metadata }))
  const handledUpTo = async (process: RunningProcess) => {
    const state = await process.run(loadMonitor(monitor_id))
    return state.status === 'none' ? 0 : Date.parse(state.handled_up_to)
  }
  const STEP = 5 * 60_000
  const first = Math.ceil(START / STEP) * STEP
  const instants = 288
  /** Instants passed during each downtime, in order (0: down for less than one period). */
  const DOWNTIMES = [0, 1, 2, 3, 12, 1, 5]
  /** The catch-up fires the downtimes must produce: scheduled instant → instants it coalesces. */
  const expectedCatchUps = new Map<number, number>()
  let restarts = 0
  let downtimes = 0
  for (let i = 0; i < instants; i++) {
    if (i % 20 === 7) {
      // Instants up to i - 1 are handled; the clock still stands at or before instant i - 1.
      await running.close()
      restarts += 1
      if (restarts % 2 === 0) {
        const passed = DOWNTIMES[downtimes]!
        downtimes += 1
        if (passed === 0) {
          clock.set(new Date(first + (i - 1) * STEP + STEP / 2))
        } else {
          i += passed
          clock.set(new Date(first + i * STEP))
          expectedCatchUps.set(first + i * STEP, passed)
        }
      }
      running = await start()
    }
    clock.set(new Date(first + i * STEP))
    const current = running
    await waitFor(async () => (await handledUpTo(current)) >= first + i * STEP, 15_000, 5)
  }
  const history = await running.run(Effect.flatMap(EventStore, (store) => store.readStream(STREAMS.monitor.stream(monitor_id))))
  await running.close()
  const fires = history.map((r) => decodeEvent(r.type, r.data)).flatMap((e) => (e._tag === 'MonitorRunFired' ? [e] : []))
  const scheduled = fires.map((f) => f.scheduled_for)
  t.ok(restarts >= 14, `${restarts} restarts, ${downtimes} after downtime`)
  t.equal(downtimes, DOWNTIMES.length, 'every planned downtime happened')
  t.equal(new Set(scheduled).size, scheduled.length, 'no instant fired twice')
  t.equal(new Set(fires.map((f) => f.run_id)).size, fires.length, 'no run id twice')
  const covered = fires.flatMap((f) => Array.from({ length: 1 + f.missed }, (_, back) => Date.parse(f.scheduled_for) - back * STEP))
  t.equal(covered.length, instants, 'as many instants fired or counted as missed as the day has')
  t.same([...covered].sort((a, b) => a - b), Array.from({ length: instants }, (_, k) => first + k * STEP), 'every instant of the day fired or counted as missed by the next fire, none twice')
  t.same(
    fires.filter((f) => f.missed > 0).map((f) => [f.scheduled_for, f.missed]),
    [...expectedCatchUps].map(([at, passed]) => [new Date(at).toISOString(), passed]),
    'one catch-up run per downtime that passed an instant, recording exactly the instants it skipped; none after the short downtime',
  )
  t.ok(scheduled.every((s) => (Date.parse(s) - first) % STEP === 0), 'fires only at scheduled instants')
})
