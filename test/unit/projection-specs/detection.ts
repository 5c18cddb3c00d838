import type { Test } from 'tap'
import { runDetectionCommand } from '../../../commands/detection.js'
import { diffLines } from '../../../domain/detection/diff.js'
import { validateJobSpec } from '../../../domain/job/spec.js'
import { MonitorCreated } from '../../../domain/monitor/events.js'
import { STREAMS } from '../../../domain/streams.js'
import type { RecordedEvent } from '../../../ports/event-store.js'
import { memoryServices, newEvents, TEST_METADATA } from '../../helpers/memory-services.js'
import type { Documents, ProjectionSpecFile } from '../../helpers/projection-spec.js'

// ---- detection: a baseline, an unchanged run, a change and its summary, a selector that stopped matching ----

const ORG = 'org-d'
const MONITOR = 'mon-d'
const at = (minute: number) => new Date(Date.UTC(2024, 4, 1, 12, minute)).toISOString()

const recordHistory = async (): Promise<readonly RecordedEvent[]> => {
  const { run, events } = memoryServices()
  const spec = validateJobSpec({ job_type: 'light', target_url: 'https://shop.example/x2' }, { allowlist: new Set(), isTimeZone: () => true })
  if (!spec.ok) throw new Error('invalid test spec')
  await run(events.append(STREAMS.monitor.stream(MONITOR), newEvents(ORG, [new MonitorCreated({
    monitor_id: MONITOR, org_id: ORG, name: 'Shoe', cron: '0 * * * *', timezone: 'UTC', job: spec.spec, overlap_policy: 'skip', tags: [],
    detection: { enabled: true, mode: 'text', selector: null, ignore_selectors: [], min_change_ratio: 0, consecutive: 1, cooldown_seconds: 0, notify: { webhook: true, email: [], digest: null } },
    created_at: at(0),
  })]), 'no_stream'))
  const ctx = { org_id: ORG, metadata: TEST_METADATA }
  const evaluate = (runId: string, minute: number, fingerprint: string | null, diff?: ReturnType<typeof diffLines>, against: string | null = null) =>
    run(runDetectionCommand({
      _tag: 'EvaluateRun', monitor_id: MONITOR, run_id: runId, job_id: `job-${runId}`,
      observation: fingerprint === null ? { ok: false, reason: 'selector_missing' } : { ok: true, fingerprint, ...(diff ? { diff } : {}) },
      diff_against: against, change_id: `change-${runId}`, diff_key: `detection/${MONITOR}/changes/change-${runId}.diff`, now: at(minute),
    }, ctx))
  await evaluate('r1', 1, 'n1:a')
  await evaluate('r2', 2, 'n1:a')
  await evaluate('r3', 3, 'n1:b', diffLines(['Price: $129.99'], ['Price: $119.99']), 'n1:a')
  await run(runDetectionCommand({ _tag: 'RecordSummary', monitor_id: MONITOR, change_id: 'change-r3', summary: 'Price changed from $129.99 to $119.99', summarizer: 'rules', now: at(3) }, ctx))
  await evaluate('r4', 4, null)
  return run(events.readAll(0, 10_000))
}

const expectations: Readonly<Record<string, (t: Test, documents: Documents) => void>> = {
  'projection.monitor-changes': (t, { monitor_changes }) => {
    t.equal(monitor_changes!.length, 1, 'one change')
    t.match(monitor_changes![0], {
      _id: 'change-r3', org_id: ORG, monitor_id: MONITOR, old_fingerprint: 'n1:a', new_fingerprint: 'n1:b', change_ratio: 1, has_diff: true,
      notified_channels: ['webhook'], detected_at: at(3), summary: 'Price changed from $129.99 to $119.99',
    })
  },
  'projection.monitors': (t, { monitors }) => {
    t.match(monitors!.find((m) => m._id === MONITOR), { health: { status: 'selector_missing', last_checked_at: at(4), last_change_at: at(3) } },
      'health from detection: the last check found no selector match; the last change is kept')
  },
}

export const spec: ProjectionSpecFile = { history: recordHistory, expectations }
