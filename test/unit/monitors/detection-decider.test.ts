/**
 * Detection's decider over a monitor's stream, given/when/then: every command and each rejection (MonitorGone,
 * NeedsDiff). The rules of one run's decision (consecutive, cooldown, min ratio) are tested on decideRun itself.
 */
import t from 'tap'
import { diffLines } from '../../../domain/detection/diff.js'
import { NORMALIZATION_VERSION } from '../../../domain/detection/normalize.js'
import { validateJobSpec } from '../../../domain/job/spec.js'
import type { DetectionConfig } from '../../../domain/monitor/detection-config.js'
import { detectionDecider, type DetectionCommand } from '../../../domain/monitor/detection-decider.js'
import {
  ChangeDetected, ChangeEmailSent, ChangeSummarized, ChangeSummaryUnavailable, DigestSent, MonitorBaselineRecorded, MonitorEmailUnsubscribed, MonitorRunEvaluated,
} from '../../../domain/monitor/detection-events.js'
import { DETECTION_OFF } from '../../../domain/monitor/detection-validation.js'
import { MonitorCreated, MonitorDeleted } from '../../../domain/monitor/events.js'
import { scenario } from '../../helpers/given-when-then.js'

const given = scenario(t, detectionDecider)
const ID = 'mon_1'
const at = (minute: number) => new Date(Date.UTC(2026, 4, 1, 10, minute)).toISOString()
const A = `n${NORMALIZATION_VERSION}:aaa`
const B = `n${NORMALIZATION_VERSION}:bbb`
const checked = validateJobSpec({ job_type: 'light', target_url: 'https://example.com/' }, { allowlist: new Set(), isTimeZone: () => true })
if (!checked.ok) throw new Error('test spec')
const DETECTION: DetectionConfig = { ...DETECTION_OFF, enabled: true, notify: { webhook: true, email: ['ada@example.com'], digest: null } }
const created = (detection = DETECTION) => new MonitorCreated({
  monitor_id: ID, org_id: 'org_1', name: 'm', cron: '* * * * *', timezone: 'UTC', job: checked.spec, overlap_policy: 'skip', detection, tags: [], created_at: at(0),
})

const diff = diffLines(['price 10'], ['price 12'])
const evaluate = (run: string, minute: number, observation: Extract<DetectionCommand, { _tag: 'EvaluateRun' }>['observation'], diffAgainst: string | null = null): DetectionCommand => ({
  _tag: 'EvaluateRun', monitor_id: ID, run_id: run, job_id: `job-${run}`, observation, diff_against: diffAgainst, change_id: `chg-${run}`, diff_key: `diffs/${run}`, now: at(minute),
})
const baselined = new MonitorBaselineRecorded({ monitor_id: ID, run_id: 'r1', fingerprint: A, normalization_version: NORMALIZATION_VERSION, reason: 'first_run', recorded_at: at(1) })
const detected = new ChangeDetected({
  monitor_id: ID, run_id: 'r2', change_id: 'chg-r2', job_id: 'job-r2', old_fingerprint: A, new_fingerprint: B, change_ratio: diff.change_ratio,
  has_diff: true, diff_key: 'diffs/r2', diff_lines: diff.lines.length, notified_channels: ['webhook', 'email'], detected_at: at(2),
})
const withChange = [created(), baselined, detected]
const summary = (change = 'chg-r2'): DetectionCommand =>
  ({ _tag: 'RecordSummary', monitor_id: ID, change_id: change, summary: 'The price rose by 2.', summarizer: 'small-eu', now: at(3) })
const summarized = new ChangeSummarized({ monitor_id: ID, change_id: 'chg-r2', summary: 'The price rose by 2.', summarizer: 'small-eu', summarized_at: at(3) })
const noSummary = (change = 'chg-r2'): DetectionCommand => ({ _tag: 'RecordNoSummary', monitor_id: ID, change_id: change, reason: 'failed', now: at(3) })
const unavailable = new ChangeSummaryUnavailable({ monitor_id: ID, change_id: 'chg-r2', reason: 'failed', recorded_at: at(3) })
const email: DetectionCommand = { _tag: 'RecordChangeEmail', monitor_id: ID, change_id: 'chg-r2', recipient: 'ada@example.com', now: at(4) }
const emailed = new ChangeEmailSent({ monitor_id: ID, change_id: 'chg-r2', recipient: 'ada@example.com', sent_at: at(4) })
const digest: DetectionCommand = { _tag: 'RecordDigest', monitor_id: ID, recipient: 'ada@example.com', period: '2026-05-01', change_ids: ['chg-r2'], now: at(5) }
const digested = new DigestSent({ monitor_id: ID, recipient: 'ada@example.com', period: '2026-05-01', change_ids: ['chg-r2'], sent_at: at(5) })
const unsubscribe = (recipient = 'Ada@Example.com'): DetectionCommand => ({ _tag: 'Unsubscribe', monitor_id: ID, recipient, now: at(6) })
const unsubscribed = new MonitorEmailUnsubscribed({ monitor_id: ID, recipient: 'Ada@Example.com', unsubscribed_at: at(6) })

// ---- EvaluateRun ----
given([created()]).when(evaluate('r1', 1, { ok: true, fingerprint: A })).then([baselined], 'the first delivered run is the baseline')
given([created(), baselined]).when(evaluate('r2', 2, { ok: true, fingerprint: A }))
  .then([new MonitorRunEvaluated({ monitor_id: ID, run_id: 'r2', health: 'ok', fingerprint: A, outcome: 'unchanged', checked_at: at(2) })], 'the same content is evaluated unchanged')
given([created(), baselined]).when(evaluate('r2', 2, { ok: false, reason: 'selector_missing' }))
  .then([new MonitorRunEvaluated({ monitor_id: ID, run_id: 'r2', health: 'selector_missing', fingerprint: null, outcome: 'selector_missing', checked_at: at(2) })], 'unreadable content is no change, with its health')
given([created(), baselined]).when(evaluate('r2', 2, { ok: true, fingerprint: B, diff }, A)).then([detected], 'changed content with its diff against the baseline is a change, notified')
given([created(), baselined]).when(evaluate('r2', 2, { ok: true, fingerprint: B }))
  .then({ _tag: 'NeedsDiff', against: A }, 'changed content without a diff: the caller must compute one against the baseline')
given([created(), baselined]).when(evaluate('r2', 2, { ok: true, fingerprint: B, diff }, 'n1:other'))
  .then({ _tag: 'NeedsDiff', against: A }, 'a diff against another fingerprint than the baseline is not used')
given(withChange).when(evaluate('r2', 2, { ok: true, fingerprint: B, diff }, A)).then([], 'a run evaluated already decides nothing')
given([created(DETECTION_OFF)]).when(evaluate('r1', 1, { ok: true, fingerprint: A })).then([], 'detection switched off decides nothing')
given([created(), new MonitorDeleted({ monitor_id: ID, deleted_at: at(1) })]).when(evaluate('r1', 1, { ok: true, fingerprint: A }))
  .then({ _tag: 'MonitorGone', monitor_id: ID }, 'a deleted monitor is gone')
given([]).when(evaluate('r1', 1, { ok: true, fingerprint: A })).then({ _tag: 'MonitorGone', monitor_id: ID }, 'an unknown monitor is gone')

// ---- RecordSummary / RecordNoSummary ----
given(withChange).when(summary()).then([summarized], 'RecordSummary records the change\'s summary')
given([...withChange, summarized]).when(summary()).then([], 'RecordSummary of a settled change records nothing')
given([...withChange, unavailable]).when(summary()).then([], 'nor after it was recorded as unavailable')
given(withChange).when(summary('chg-unknown')).then([], 'RecordSummary of an unknown change records nothing')
given(withChange).when(noSummary()).then([unavailable], 'RecordNoSummary records why there is none')
given([...withChange, summarized]).when(noSummary()).then([], 'RecordNoSummary of a settled change records nothing')
given(withChange).when(noSummary('chg-unknown')).then([], 'RecordNoSummary of an unknown change records nothing')

// ---- RecordChangeEmail / RecordDigest ----
given(withChange).when(email).then([emailed], 'RecordChangeEmail records the mail to one recipient')
given([...withChange, emailed]).when(email).then([], 'RecordChangeEmail again (same change and recipient) records nothing')
given(withChange).when(digest).then([digested], 'RecordDigest records the period\'s digest to one recipient')
given([...withChange, digested]).when({ ...digest, change_ids: ['chg-r2', 'chg-r3'] }).then([], 'RecordDigest again (same recipient and period) records nothing')

// ---- Unsubscribe ----
given([created()]).when(unsubscribe()).then([unsubscribed], 'Unsubscribe records the recipient')
given([created(), unsubscribed]).when(unsubscribe('ada@example.com')).then([], 'Unsubscribe again, in any case, records nothing')
given([]).when(unsubscribe()).then({ _tag: 'MonitorGone', monitor_id: ID }, 'Unsubscribe from an unknown monitor: it is gone')
