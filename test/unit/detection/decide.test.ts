import t from 'tap'
import { decideRun, EMPTY_MEMORY, type DetectionMemory, type DetectionRules } from '../../../domain/detection/decide.js'
import { diffLines } from '../../../domain/detection/diff.js'
import { NORMALIZATION_VERSION } from '../../../domain/detection/normalize.js'

const RULES: DetectionRules = { enabled: true, min_change_ratio: 0, consecutive: 1, cooldown_seconds: 0, notify: { webhook: true, email: [], digest: null } }
const NOW = '2026-11-23T12:00:00.000Z'
const A = 'n1:aaa'
const B = 'n1:bbb'
const withBaseline = (memory: Partial<DetectionMemory> = {}): DetectionMemory =>
  ({ ...EMPTY_MEMORY, baseline: { fingerprint: A, normalization_version: NORMALIZATION_VERSION }, ...memory })
const diff = diffLines(['price 10', 'x y z'], ['price 12', 'x y z'])
const changed = { ok: true as const, fingerprint: B, diff }
const run = (observation: Parameters<typeof decideRun>[2]['observation'], run_id = 'r2', now = NOW) => ({ run_id, observation, now })

t.test('given no baseline, when a run delivers, then it is the baseline', async (t) => {
  t.match(decideRun(RULES, EMPTY_MEMORY, run({ ok: true, fingerprint: A })), { kind: 'baseline', reason: 'first_run', fingerprint: A, normalization_version: NORMALIZATION_VERSION })
  t.match(decideRun(RULES, { ...EMPTY_MEMORY, baseline_reset: true }, run({ ok: true, fingerprint: A })), { kind: 'baseline', reason: 'reset' })
})

t.test('given a baseline of an older normalization, when content comes, then it re-baselines instead of alerting', async (t) => {
  const old = withBaseline({ baseline: { fingerprint: 'n0:zzz', normalization_version: NORMALIZATION_VERSION - 1 } })
  t.match(decideRun(RULES, old, run(changed)), { kind: 'baseline', reason: 'normalization_changed', fingerprint: B })
})

t.test('given a baseline, when the same content comes, then it is evaluated ok', async (t) => {
  t.same(decideRun(RULES, withBaseline(), run({ ok: true, fingerprint: A })), { kind: 'evaluated', health: 'ok', fingerprint: A, why: 'unchanged' })
})

t.test('given a baseline, when the selector matches nothing, then health is selector_missing and nothing changes', async (t) => {
  t.same(decideRun(RULES, withBaseline(), run({ ok: false, reason: 'selector_missing' })), { kind: 'evaluated', health: 'selector_missing', fingerprint: null, why: 'selector_missing' })
})

t.test('given a baseline, when the content cannot be read in the mode, then health is unreadable (not ok) and nothing changes', async (t) => {
  t.same(decideRun(RULES, withBaseline(), run({ ok: false, reason: 'unreadable' })), { kind: 'evaluated', health: 'unreadable', fingerprint: null, why: 'unreadable' })
})

t.test('given a baseline, when content differs, then it is a change notified on the configured channels', async (t) => {
  t.match(decideRun(RULES, withBaseline(), run(changed)), { kind: 'change', old_fingerprint: A, fingerprint: B, notified_channels: ['webhook'] })
  const mail = { ...RULES, notify: { webhook: false, email: ['a@example.com'], digest: null } }
  t.match(decideRun(mail, withBaseline(), run(changed)), { notified_channels: ['email'] })
  const digest = { ...RULES, notify: { webhook: true, email: ['a@example.com'], digest: 'daily' } }
  t.match(decideRun(digest, withBaseline(), run(changed)), { notified_channels: ['webhook', 'digest'] })
  t.same(decideRun(RULES, withBaseline(), run({ ok: true, fingerprint: B })), { kind: 'needs_diff', against: A }, 'the diff is asked for when missing')
})

t.test('min_change_ratio: a smaller change is no change', async (t) => {
  t.equal(diff.change_ratio, 0.8, '2 out + 2 in over 5 tokens')
  t.match(decideRun({ ...RULES, min_change_ratio: 0.9 }, withBaseline(), run(changed)), { kind: 'evaluated', why: 'below_min_change_ratio' })
  t.match(decideRun({ ...RULES, min_change_ratio: 0.8 }, withBaseline(), run(changed)), { kind: 'change' }, 'equal to the minimum clears it')
})

t.test('consecutive: the same new fingerprint on N consecutive delivered runs', async (t) => {
  const rules = { ...RULES, consecutive: 3 }
  t.match(decideRun(rules, withBaseline(), run(changed)), { kind: 'evaluated', why: 'awaiting_consecutive', fingerprint: B })
  t.match(decideRun(rules, withBaseline({ candidate: { fingerprint: B, runs: 1 } }), run(changed)), { kind: 'evaluated', why: 'awaiting_consecutive' })
  t.match(decideRun(rules, withBaseline({ candidate: { fingerprint: B, runs: 2 } }), run(changed)), { kind: 'change' })
  t.match(decideRun(rules, withBaseline({ candidate: { fingerprint: 'n1:ccc', runs: 2 } }), run(changed)), { kind: 'evaluated', why: 'awaiting_consecutive' }, 'another fingerprint starts over')
})

t.test('cooldown: a change inside it is recorded with no channels', async (t) => {
  const rules = { ...RULES, cooldown_seconds: 3600 }
  t.match(decideRun(rules, withBaseline({ last_notified_at: '2026-11-23T11:30:00.000Z' }), run(changed)), { kind: 'change', notified_channels: [] })
  t.match(decideRun(rules, withBaseline({ last_notified_at: '2026-11-23T11:00:00.000Z' }), run(changed)), { kind: 'change', notified_channels: ['webhook'] }, 'an hour later it notifies again')
})

t.test('off, and idempotent on the run id', async (t) => {
  t.same(decideRun({ ...RULES, enabled: false }, withBaseline(), run(changed)), { kind: 'ignore', why: 'disabled' })
  t.same(decideRun(RULES, withBaseline({ evaluated_runs: new Set(['r2']) }), run(changed)), { kind: 'ignore', why: 'already_evaluated' })
})
