import type { Test } from 'tap'
import { handle, type Timed } from '../../../commands/handle.js'
import type { Decider } from '../../../domain/decider.js'
import { jobDecider, type JobCommand } from '../../../domain/job/decider.js'
import type { ArtifactRecord } from '../../../domain/job/events.js'
import { validateJobSpec } from '../../../domain/job/spec.js'
import { holdDecider } from '../../../domain/retention/hold.js'
import { retentionDecider } from '../../../domain/retention/policy.js'
import { STREAMS, type DomainEvent } from '../../../domain/streams.js'
import type { Doc } from '../../../ports/document-store.js'
import type { RecordedEvent } from '../../../ports/event-store.js'
import { memoryServices, TEST_METADATA } from '../../helpers/memory-services.js'
import type { Documents, ProjectionSpecFile } from '../../helpers/projection-spec.js'

// ---- lifecycle: legal holds on, two holds on one job (one released), a deletion request, a purge past retention ----

const ORG = 'org-l'
const at = (minute: number) => new Date(Date.UTC(2024, 4, 31, 21, minute)).toISOString()
const jobSpec = () => {
  const result = validateJobSpec({ job_type: 'light', target_url: 'https://example.com/item' }, { allowlist: new Set(), isTimeZone: () => true })
  if (!result.ok) throw new Error(`invalid test spec: ${JSON.stringify(result.errors)}`)
  return result.spec
}
const artifact = (jobId: string, type: string): ArtifactRecord => ({
  artifact_id: `${jobId}-${type}`, artifact_type: type, content_type: 'text/html', size: 42, sha256: 'a'.repeat(64),
  blob_key: `jobs/${ORG}/${jobId}/${type}`, created_at: at(2),
})

type WithoutJobId<C> = C extends unknown ? Omit<C, 'job_id'> : never

const recordHistory = async (): Promise<readonly RecordedEvent[]> => {
  const { run, events } = memoryServices()
  const command = <C extends Timed, E extends DomainEvent, S, Err>(decider: Decider<C, E, S, Err>, stream: string, actor: string) =>
    (c: C) => run(handle(decider, stream, c, { org_id: ORG, metadata: { ...TEST_METADATA, actor } }))
  const job = (jobId: string) => (c: WithoutJobId<JobCommand>) => command(jobDecider, STREAMS.job.stream(jobId), 'api_key:k1')({ ...c, job_id: jobId } as JobCommand)
  const purger = (jobId: string) => (c: WithoutJobId<JobCommand>) => command(jobDecider, STREAMS.job.stream(jobId), 'purger')({ ...c, job_id: jobId } as JobCommand)
  const hold = (holdId: string) => command(holdDecider, STREAMS.hold.stream(holdId), 'api_key:k1')
  for (const [jobId, minute] of [['j1', 1], ['j2', 3]] as const) {
    await job(jobId)({ _tag: 'RequestJob', origin: { _tag: 'api' }, org_id: ORG, api_key_id: 'k1', spec: jobSpec(), now: at(minute) })
    await job(jobId)({ _tag: 'StartJob', worker_id: 'w1', now: at(minute) })
    await job(jobId)({ _tag: 'SucceedJob', manifest: { http_status: 200 }, artifacts: [artifact(jobId, 'html'), artifact(jobId, 'screenshot')], now: at(minute + 1) })
  }
  await command(retentionDecider, STREAMS.retention.stream(ORG), 'api_key:k1')(
    { _tag: 'SetRetentionPolicy', org_id: ORG, plan: 'pro', retention_days: 30, legal_hold_enabled: true, active_holds: 0, now: at(10) })
  await hold('h1')({ _tag: 'PlaceHold', hold_id: 'h1', org_id: ORG, scope_type: 'job', scope_ref: 'j2', justification: 'case 1', plan: 'pro', holds_enabled: true, scope_found: true, now: at(11) })
  await hold('h2')({ _tag: 'PlaceHold', hold_id: 'h2', org_id: ORG, scope_type: 'artifact', scope_ref: 'j1-screenshot', justification: 'case 2', plan: 'pro', holds_enabled: true, scope_found: true, now: at(12) })
  await hold('h1')({ _tag: 'ReleaseHold', hold_id: 'h1', org_id: ORG, justification: 'case 1 closed', now: at(13) })
  await job('j2')({ _tag: 'RequestJobDeletion', now: at(14) })
  // j1's screenshot is held: its html goes, the job record stays; j2 goes whole.
  await purger('j1')({ _tag: 'PurgeJob', reason: 'retention_expired', held_artifacts: new Set(['j1-screenshot']), now: at(15) })
  await purger('j1')({ _tag: 'RecordBlobDeleted', artifact_id: 'j1-html', now: at(15) })
  await purger('j2')({ _tag: 'PurgeJob', reason: 'deletion_requested', held_artifacts: new Set(), now: at(16) })
  await purger('j2')({ _tag: 'RecordBlobDeleted', artifact_id: 'j2-html', now: at(16) })
  return run(events.readAll(0, 10_000))
}

const byId = (docs: readonly Doc[], id: string) => docs.find((d) => d._id === id)

const expectations: Readonly<Record<string, (t: Test, documents: Documents) => void>> = {
  'projection.jobs': (t, { jobs, jobs_purged }) => {
    t.same(jobs!.map((j) => j._id), ['j1'], 'the purged j2 is gone')
    t.same((byId(jobs!, 'j1')!.artifacts as ArtifactRecord[]).map((a) => a.artifact_id), ['j1-screenshot'], 'only the held artifact of j1 stays')
    t.same(jobs_purged!.map((j) => [j._id, j.org_id]), [['j2', ORG]], 'a tombstone keeps a redelivered event of j2 from bringing it back')
  },
  'projection.credits': (t, { credit_usage }) => {
    t.same(credit_usage!.map((u) => [u._id, u.credits_used, u.jobs_charged]), [[`${ORG}:2024-05`, 2, 2]], 'a purge takes back no credit')
  },
  'projection.audit': (t, { audit }) => {
    const types = audit!.map((e) => e.type)
    for (const type of ['RetentionPolicySet', 'LegalHoldPlaced', 'LegalHoldReleased', 'JobDeletionRequested', 'ArtifactPurged', 'JobPurged', 'ArtifactBlobDeleted']) {
      t.ok(types.includes(type), `${type} is in the audit trail`)
    }
    t.match(audit!.find((e) => e.type === 'LegalHoldReleased'), { actor: 'api_key:k1', detail: { hold_id: 'h1', justification: 'case 1 closed' } })
    t.match(audit!.find((e) => e.type === 'JobPurged'), { actor: 'purger', detail: { job_id: 'j2', reason: 'deletion_requested' } })
  },
  'projection.retention': (t, { retention_policies, legal_holds }) => {
    t.same(retention_policies!.map((p) => [p._id, p.retention_days, p.legal_hold_enabled, p.policy_version]), [[ORG, 30, true, 1]])
    t.same(legal_holds!.map((h) => [h._id, h.scope_type, h.scope_ref, h.status, h.placed_by]),
      [['h1', 'job', 'j2', 'released', 'api_key:k1'], ['h2', 'artifact', 'j1-screenshot', 'active', 'api_key:k1']])
    t.match(byId(legal_holds!, 'h1'), { release_justification: 'case 1 closed', released_at: at(13), released_by: 'api_key:k1' })
  },
  'projection.lifecycle': (t, { lifecycle_jobs }) => {
    t.match(byId(lifecycle_jobs!, 'j1'), {
      purged: false, open: true, blobs_pending: false,
      artifacts: [{ artifact_id: 'j1-html', state: 'deleted' }, { artifact_id: 'j1-screenshot', state: 'live' }],
    })
    t.match(byId(lifecycle_jobs!, 'j2'), {
      purged: true, open: false, deletion_requested: true, blobs_pending: true,
      artifacts: [{ artifact_id: 'j2-html', state: 'deleted' }, { artifact_id: 'j2-screenshot', state: 'purged' }],
    }, 'j2-screenshot is tombstoned, its blob deletion not yet recorded (a crash): the next sweep finishes it')
  },
}

export const spec: ProjectionSpecFile = { history: recordHistory, expectations }
