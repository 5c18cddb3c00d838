/**
 * Change detection on pages over the detection caps (docs/limits.md, domain/content-limits.ts): size, nesting depth
 * and element count. Each such run is evaluated `unreadable` (never a change, never a stall): the detector reads the
 * page in a worker, /healthz keeps answering, and the monitor's next readable run is compared with its baseline.
 */
import t from 'tap'
import { MAX_CONTENT_CHARS, MAX_DOM_DEPTH, MAX_DOM_ELEMENTS } from '../../domain/content-limits.js'
import type { DetectionConfig } from '../../domain/monitor/detection-config.js'
import { makeManualClock } from '../../infra/clock/manual.js'
import { responsiveWhile } from '../helpers/responsiveness.js'
import { detectorFeed } from '../helpers/detector-feed.js'
import { startService } from '../helpers/service.js'

const clock = makeManualClock('2026-11-23T09:00:00.000Z')
const service = await startService({ allowlist: ['127.0.0.1:9'], roles: ['api', 'relay', 'projector', 'detector'], clock })
t.teardown(() => service.close())
const org = await service.createOrg('pro')
const { createMonitor: createWith, deliver: deliverRun } = detectorFeed(service, org.org_id, clock)

const DETECTION: DetectionConfig = {
  enabled: true, mode: 'text', selector: null, ignore_selectors: [], min_change_ratio: 0, consecutive: 1, cooldown_seconds: 0,
  notify: { webhook: false, email: [], digest: null },
}
const createMonitor = () => createWith(DETECTION, { name: 'Caps' })

/** One delivered run; answers the detector's event about it. */
const deliver = async (monitorId: string, html: string) => {
  const answer = await deliverRun(monitorId, html)
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
