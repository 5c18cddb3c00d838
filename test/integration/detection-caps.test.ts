/**
 * Change detection on pages over the detection caps (docs/limits.md, domain/content-limits.ts): size, nesting depth
 * and element count. Each such run is evaluated `unreadable` (never a change, never a stall): the detector reads the
 * page in a worker, /healthz keeps answering, and the monitor's next readable run is compared with its baseline.
 */
import { randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import t from 'tap'
import { MAX_CONTENT_CHARS, MAX_DOM_DEPTH, MAX_DOM_ELEMENTS } from '../../domain/content-limits.js'
import { encodeEvent } from '../../domain/events.js'
import { JobSucceeded } from '../../domain/job/events.js'
import { validateJobSpec } from '../../domain/job/spec.js'
import type { DetectionConfig } from '../../domain/monitor/detection-config.js'
import { MonitorCreated, MonitorRunCompleted, type MonitorEvent } from '../../domain/monitor/events.js'
import { STREAMS, type DomainEvent } from '../../domain/streams.js'
import { makeManualClock } from '../../infra/clock/manual.js'
import { BlobStore } from '../../ports/blob-store.js'
import { EventStore } from '../../ports/event-store.js'
import { responsiveWhile } from '../helpers/responsiveness.js'
import { startService, waitFor } from '../helpers/service.js'

const clock = makeManualClock('2026-11-23T09:00:00.000Z')
const service = await startService({ allowlist: ['127.0.0.1:9'], roles: ['api', 'relay', 'projector', 'detector'], clock })
t.teardown(() => service.close())
const org = await service.createOrg('pro')
const metadata = { correlation_id: 'test', causation_id: null, actor: 'test' }

const append = (stream: string, events: readonly DomainEvent[]) => service.run(Effect.gen(function* () {
  const store = yield* EventStore
  yield* store.append(stream, events.map((event) => ({
    event_id: randomUUID(), ...encodeEvent(event), org_id: org.org_id, occurred_at: clock.now().toISOString(), metadata,
  })), 'any')
}))
const runRecords = (monitorId: string, runId: string) => service.run(Effect.map(
  Effect.flatMap(EventStore, (store) => store.readStream(STREAMS.monitor.stream(monitorId))),
  (history) => history.filter((r) => (r.data as { run_id?: string }).run_id === runId),
))

const DETECTION: DetectionConfig = {
  enabled: true, mode: 'text', selector: null, ignore_selectors: [], min_change_ratio: 0, consecutive: 1, cooldown_seconds: 0,
  notify: { webhook: false, email: [], digest: null },
}
const createMonitor = async () => {
  const monitorId = randomUUID()
  const checked = validateJobSpec({ job_type: 'light', target_url: 'http://127.0.0.1:9/page' }, { allowlist: service.config.ssrfAllowlist, isTimeZone: () => true })
  if (!checked.ok) throw new Error('invalid job')
  await append(STREAMS.monitor.stream(monitorId), [new MonitorCreated({
    monitor_id: monitorId, org_id: org.org_id, name: 'Caps', cron: '0 * * * *', timezone: 'UTC', job: checked.spec, overlap_policy: 'skip',
    detection: DETECTION, tags: [], created_at: clock.now().toISOString(),
  })])
  return monitorId
}

/** One delivered run (the job's stored page and the run's completion); answers the detector's event about it. */
const deliver = async (monitorId: string, html: string) => {
  const jobId = randomUUID()
  const runId = randomUUID()
  const key = `jobs/${org.org_id}/${jobId}/page`
  const stored = await service.run(Effect.flatMap(BlobStore, (blobs) => blobs.put(key, new TextEncoder().encode(html), 'text/html')))
  await append(STREAMS.job.stream(jobId), [new JobSucceeded({
    job_id: jobId, manifest: {}, finished_at: clock.now().toISOString(),
    artifacts: [{ artifact_id: 'page', artifact_type: 'html', content_type: 'text/html', size: stored.size, sha256: stored.sha256, blob_key: key, created_at: clock.now().toISOString() }],
  })])
  await append(STREAMS.monitor.stream(monitorId), [new MonitorRunCompleted({
    monitor_id: monitorId, run_id: runId, job_id: jobId, status: 'delivered', detail: '', completed_at: clock.now().toISOString(),
  }) as MonitorEvent])
  await waitFor(async () => (await runRecords(monitorId, runId)).length > 1, 60_000)
  const answer = (await runRecords(monitorId, runId))[1]!
  return { type: answer.type, data: answer.data as { health?: string; fingerprint?: string | null } }
}

const page = (text: string) => `<html><body><h1>Caps</h1><p>${text}</p></body></html>`
const OVER_CAPS = {
  [`${MAX_CONTENT_CHARS + 1}+ characters`]: page('a'.repeat(MAX_CONTENT_CHARS + 1)),
  [`elements nested ${MAX_DOM_DEPTH + 100} deep`]: `<html><body>${'<div>'.repeat(MAX_DOM_DEPTH + 100)}deep${'</div>'.repeat(MAX_DOM_DEPTH + 100)}</body></html>`,
  [`${MAX_DOM_ELEMENTS + 1} elements`]: `<html><body>${'<i></i>'.repeat(MAX_DOM_ELEMENTS + 1)}</body></html>`,
}

t.test('pages over the detection caps are unreadable runs, /healthz answers throughout, and the baseline is kept', async (t) => {
  const monitorId = await createMonitor()
  t.equal((await deliver(monitorId, page('Price: 10 EUR'))).type, 'MonitorBaselineRecorded', 'a readable baseline')
  for (const [what, html] of Object.entries(OVER_CAPS)) {
    clock.advance(3_600_000)
    const { value: answer, worstMs, worstGapMs } = await responsiveWhile(service.base, deliver(monitorId, html))
    t.match(answer, { type: 'MonitorRunEvaluated', data: { health: 'unreadable', fingerprint: null } }, `${what}: unreadable, never a change`)
    t.ok(worstMs < 1_000, `${what}: worst /healthz latency ${worstMs.toFixed(0)} ms`)
    t.ok(worstGapMs < 1_000, `${what}: the event loop's worst gap ${worstGapMs.toFixed(0)} ms`)
  }
  clock.advance(3_600_000)
  t.equal((await deliver(monitorId, page('Price: 10 EUR'))).type, 'MonitorRunEvaluated', 'the same readable page again: no change against the kept baseline')
  clock.advance(3_600_000)
  t.equal((await deliver(monitorId, page('Price: 12 EUR'))).type, 'ChangeDetected', 'a real change is still detected')
})
