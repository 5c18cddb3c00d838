/**
 * Feeds a service's detector the way the scheduler and the fetcher would, without either: a monitor's creation, and
 * delivered runs (the job's stored page, its JobSucceeded, the run's completion) appended as events of `orgId`.
 */
import { randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import { encodeEvent } from '../../domain/events.js'
import { JobSucceeded } from '../../domain/job/events.js'
import { validateJobSpec } from '../../domain/job/spec.js'
import type { DetectionConfig } from '../../domain/monitor/detection-config.js'
import { MonitorCreated, MonitorRunCompleted, type MonitorEvent } from '../../domain/monitor/events.js'
import { STREAMS, type DomainEvent } from '../../domain/streams.js'
import type { ClockService } from '../../ports/clock.js'
import { BlobStore } from '../../ports/blob-store.js'
import { EventStore } from '../../ports/event-store.js'
import { waitFor, type Service } from './service.js'

export const detectorFeed = (service: Service, orgId: string, clock: ClockService) => {
  const metadata = { correlation_id: 'test', causation_id: null, actor: 'test' }
  const append = (stream: string, events: readonly DomainEvent[]) => service.run(Effect.gen(function* () {
    const store = yield* EventStore
    yield* store.append(stream, events.map((event) => ({
      event_id: randomUUID(), ...encodeEvent(event), org_id: orgId, occurred_at: clock.now().toISOString(), metadata,
    })), 'any')
  }))
  const monitorHistory = (monitorId: string) => service.run(Effect.flatMap(EventStore, (store) => store.readStream(STREAMS.monitor.stream(monitorId))))
  /** A monitor's events about one run (a previous change's summary may land in between). */
  const runRecords = async (monitorId: string, runId: string) =>
    (await monitorHistory(monitorId)).filter((r) => (r.data as { run_id?: string }).run_id === runId)

  const createMonitor = async (detection: DetectionConfig, options: { readonly name?: string; readonly timezone?: string; readonly targetUrl?: string } = {}) => {
    const monitorId = randomUUID()
    const checked = validateJobSpec({ job_type: 'light', target_url: options.targetUrl ?? 'http://127.0.0.1:9/page' }, { allowlist: service.config.ssrfAllowlist, isTimeZone: () => true })
    if (!checked.ok) throw new Error('invalid job')
    await append(STREAMS.monitor.stream(monitorId), [new MonitorCreated({
      monitor_id: monitorId, org_id: orgId, name: options.name ?? 'Monitor', cron: '0 * * * *', timezone: options.timezone ?? 'UTC',
      job: checked.spec, overlap_policy: 'skip', detection, tags: [], created_at: clock.now().toISOString(),
    })])
    return monitorId
  }

  /** One delivered run; answers the detector's event about it (the run's first event after its completion). */
  const deliver = async (monitorId: string, html: string, waitMs = 60_000) => {
    const jobId = randomUUID()
    const runId = randomUUID()
    const key = `jobs/${orgId}/${jobId}/page`
    const stored = await service.run(Effect.flatMap(BlobStore, (blobs) => blobs.put(key, new TextEncoder().encode(html), 'text/html')))
    await append(STREAMS.job.stream(jobId), [new JobSucceeded({
      job_id: jobId, manifest: {}, finished_at: clock.now().toISOString(),
      artifacts: [{ artifact_id: 'page', artifact_type: 'html', content_type: 'text/html', size: stored.size, sha256: stored.sha256, blob_key: key, created_at: clock.now().toISOString() }],
    })])
    await append(STREAMS.monitor.stream(monitorId), [new MonitorRunCompleted({
      monitor_id: monitorId, run_id: runId, job_id: jobId, status: 'delivered', detail: '', completed_at: clock.now().toISOString(),
    }) as MonitorEvent])
    await waitFor(async () => (await runRecords(monitorId, runId)).length > 1, waitMs)
    return (await runRecords(monitorId, runId))[1]!
  }

  return { append, monitorHistory, runRecords, createMonitor, deliver }
}
