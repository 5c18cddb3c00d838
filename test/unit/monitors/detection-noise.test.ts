import t from 'tap'
import { ALL_NOISE, NO_NOISE } from '../../../domain/detection/noise.js'
import { validateJobSpec } from '../../../domain/job/spec.js'
import { monitorDecider } from '../../../domain/monitor/decider.js'
import { noiseOf, type DetectionConfig } from '../../../domain/monitor/detection-config.js'
import { DETECTION_OFF, validateDetection } from '../../../domain/monitor/detection-validation.js'
import { MonitorCreated, MonitorUpdated } from '../../../domain/monitor/events.js'
import type { Errors } from '../../../domain/validation.js'
import { scenario } from '../../helpers/given-when-then.js'

const validate = (input: unknown, base: DetectionConfig = DETECTION_OFF) => {
  const errors: Errors = []
  const detection = validateDetection(errors, input, base)
  return { detection, codes: errors.map((e) => `${e.field} ${e.code}`) }
}

t.test('detection.noise: every step on by default, true / false / the steps named', async (t) => {
  t.same(validate({}).detection?.noise, ALL_NOISE, 'a block with no options quietens every step')
  t.same(validate({ noise: false }).detection?.noise, NO_NOISE)
  t.same(validate({ noise: true }, { ...DETECTION_OFF, noise: NO_NOISE }).detection?.noise, ALL_NOISE)
  t.same(validate({ noise: { dates: false } }).detection?.noise, { ...ALL_NOISE, dates: false }, 'only the step named changes')
  const base = { ...DETECTION_OFF, enabled: true, noise: { ...ALL_NOISE, counters: false } }
  t.same(validate({ noise: { dates: false } }, base).detection?.noise, { ...ALL_NOISE, counters: false, dates: false }, 'the others keep their current value')
  t.same(validate({ min_change_ratio: 0.1 }, base).detection?.noise, base.noise, 'omitted: kept')
  const old: DetectionConfig = { ...DETECTION_OFF, noise: undefined }
  t.same(noiseOf(old), ALL_NOISE, 'a block recorded before noise steps existed reads all on')
})

t.test('detection.noise: each bad input a clear 422 code, nothing changed', async (t) => {
  t.same(validate({ noise: 'on' }), { detection: undefined, codes: ['detection.noise invalid_noise'] })
  t.same(validate({ noise: [] }), { detection: undefined, codes: ['detection.noise invalid_noise'] })
  t.same(validate({ noise: null }), { detection: undefined, codes: ['detection.noise invalid_noise'] })
  t.same(validate({ noise: { times: 1, clocks: true } }).codes.sort(), ['detection.noise.clocks unknown_field', 'detection.noise.times invalid_noise_step'])
})

t.test('new noise steps reset the baseline (other steps read other lines); the same steps do not', async (t) => {
  const checked = validateJobSpec({ job_type: 'light', target_url: 'https://example.com/' }, { allowlist: new Set(), isTimeZone: () => true })
  if (!checked.ok) throw new Error('test spec')
  const on: DetectionConfig = { ...DETECTION_OFF, enabled: true, noise: undefined }
  const created = new MonitorCreated({
    monitor_id: 'm', org_id: 'o', name: 'm', cron: '* * * * *', timezone: 'UTC', job: checked.spec, overlap_policy: 'skip', detection: on, tags: [], created_at: '2026-05-01T10:00:00.000Z',
  })
  const now = '2026-05-01T10:01:00.000Z'
  const given = scenario(t, monitorDecider)
  const fewer = { ...on, noise: { ...ALL_NOISE, times: false } }
  given([created]).when({ _tag: 'UpdateMonitor', monitor_id: 'm', changes: { detection: fewer }, now })
    .then([new MonitorUpdated({ monitor_id: 'm', detection: fewer, baseline_reset: true, updated_at: now })], 'a step switched off: reset')
  const explicit = { ...on, noise: ALL_NOISE, min_change_ratio: 0.2 }
  given([created]).when({ _tag: 'UpdateMonitor', monitor_id: 'm', changes: { detection: explicit }, now })
    .then([new MonitorUpdated({ monitor_id: 'm', detection: explicit, baseline_reset: false, updated_at: now })], 'all on, as the old block read: no reset')
})
