import t from 'tap'
import type { JobOrigin } from '../../domain/job/origin.js'
import { scenario as scenarioOf } from '../helpers/given-when-then.js'
import { fold } from '../../domain/decider.js'
import { jobDecider, type JobCommand } from '../../domain/job/decider.js'
import {
  ArtifactBlobDeleted, ArtifactPurged, CreditsCharged, JobDeletionRequested, JobFailed, JobPurged, JobRequested, JobStarted, JobSucceeded, type ArtifactRecord,
} from '../../domain/job/events.js'
import { mayBeFrom } from '../../domain/job/origins.js'
import { validateJobSpec, type JobSpec } from '../../domain/job/spec.js'
import { orgDecider, type OrgCommand } from '../../domain/org/decider.js'
import { ApiKeyCreated, ApiKeyRevoked, OrgCreated, OrgPlanChanged, OrgSummariesSet, type KeyLimits } from '../../domain/org/events.js'


// ---- jobs ------------------------------------------------------------------------------------------

const given = scenarioOf(t, jobDecider)
const NOW = '2024-05-01T12:00:00.000Z'
const LATER = '2024-05-01T12:05:00.000Z'

const specFor = (input: Record<string, unknown>): JobSpec => {
  const result = validateJobSpec(input, { allowlist: new Set(), isTimeZone: () => true })
  if (!result.ok) throw new Error(`invalid test spec: ${JSON.stringify(result.errors)}`)
  return result.spec
}
const spec = specFor({ job_type: 'light', target_url: 'https://example.com/page' })

const request: JobCommand = { _tag: 'RequestJob', origin: { _tag: 'api' }, job_id: 'j1', org_id: 'o1', api_key_id: 'k1', spec, now: NOW }
const start: JobCommand = { _tag: 'StartJob', job_id: 'j1', worker_id: 'w1', now: NOW }
const artifact: ArtifactRecord = {
  artifact_id: 'a1', artifact_type: 'html', content_type: 'text/html', size: 10, sha256: 'ab', blob_key: 'jobs/j1/a1', created_at: LATER,
}
const succeed: JobCommand = { _tag: 'SucceedJob', job_id: 'j1', manifest: { status_code: 200 }, artifacts: [artifact], now: LATER }
const fail: JobCommand = { _tag: 'FailJob', job_id: 'j1', failure_reason: 'timeout', message: 'took too long', now: LATER }

const requested = new JobRequested({ origin: { _tag: 'api' }, job_id: 'j1', org_id: 'o1', api_key_id: 'k1', spec, credit_weight: 1, requested_at: NOW })
const started = (attempt: number) => new JobStarted({ job_id: 'j1', attempt, worker_id: 'w1', started_at: NOW })
const API = { _tag: 'api' } as const
const succeeded = new JobSucceeded({ job_id: 'j1', manifest: { status_code: 200 }, artifacts: [artifact], finished_at: LATER, origins: ['api'], origin: API })
const failed = new JobFailed({ job_id: 'j1', failure_reason: 'timeout', message: 'took too long', finished_at: LATER, origins: ['api'], origin: API })
const charged = new CreditsCharged({ job_id: 'j1', org_id: 'o1', credits: 1, reason: 'job_succeeded', charged_at: LATER })

t.equal(spec.job_type, 'light', 'the test spec is normalized by validateJobSpec')

given([]).when(request).then([requested], 'RequestJob on a new job records JobRequested')
given([]).when({ ...request, spec: specFor({ job_type: 'stealth', target_url: 'https://example.com/' }) })
  .then([new JobRequested({ ...requested, spec: specFor({ job_type: 'stealth', target_url: 'https://example.com/' }), credit_weight: 30 })], 'the credit weight follows the tier')
given([requested]).when(request).then({ _tag: 'StateConflict', code: 'job_exists' }, 'RequestJob twice conflicts')

given([requested]).when(start).then([started(1)], 'StartJob on a queued job is attempt 1')
given([requested, started(1)]).when({ ...start, worker_id: 'w2' })
  .then([new JobStarted({ job_id: 'j1', attempt: 2, worker_id: 'w2', started_at: NOW })], 'StartJob on a running job is a restart: attempt 2')

given([requested, started(1)]).when(succeed).then([succeeded, charged], 'SucceedJob on a running job, charged its weight with its end')
given([requested]).when(succeed).then({ _tag: 'StateConflict', code: 'job_not_running' }, 'SucceedJob on a queued job conflicts')

given([requested, started(1)]).when(fail).then([failed], 'FailJob on a running job, charged nothing')
given([requested, started(1)]).when({ ...fail, manifest: { status_code: 503 }, artifacts: [artifact] })
  .then([new JobFailed({ job_id: 'j1', failure_reason: 'timeout', message: 'took too long', manifest: { status_code: 503 }, artifacts: [artifact], finished_at: LATER, origins: ['api'], origin: API })], 'FailJob keeps an optional manifest and artifacts')

// The processors that finish monitor runs and scrapes tell their jobs from the terminal event alone: its recorded origin.
const originsOfEnd = (origin: JobOrigin, command: JobCommand, jobSpec: JobSpec = spec) => {
  const ran = [new JobRequested({ ...requested, spec: jobSpec, origin }), started(1)]
  const decided = jobDecider.decide(command, fold(jobDecider, ran))
  if (decided._tag === 'Left') throw new Error(`unexpected ${decided.left._tag}`)
  const end = decided.right[0] as JobSucceeded | JobFailed
  return { origins: end.origins, origin: end.origin }
}
t.same(originsOfEnd({ _tag: 'monitor_run', monitor_id: 'm1', run_id: 'r1' }, succeed), { origins: ['monitor_run'], origin: { _tag: 'monitor_run', monitor_id: 'm1', run_id: 'r1' } }, 'a v1 monitor run\'s job ends naming it')
t.same(originsOfEnd({ _tag: 'content_monitor_run', monitor_id: 'm1', run_id: 'j1' }, fail).origins, ['content_monitor_run'], 'a content monitor run\'s job ends naming it')
t.same(originsOfEnd({ _tag: 'scrape', user_id: 'u1' }, succeed).origins, ['scrape'], 'a scrape\'s job ends naming it')
t.same(originsOfEnd(API, fail, specFor({ job_type: 'light', target_url: 'https://example.com/', idempotency_token: 'monitor-run:m1:r1', tags: ['scrape-by:u1', 'content-monitor:m1'] })).origins, ['api'],
  'an API job ends naming only its API origin, whatever markers its tags and token hold')
t.ok(mayBeFrom({ origins: undefined }, 'scrape'), 'an end recorded before origins existed may be anyone\'s: its job is loaded')
t.notOk(mayBeFrom({ origins: ['monitor_run'] }, 'scrape'), 'an end naming other origins is not a scrape\'s')

for (const [label, end] of [['succeeded', succeeded], ['failed', failed]] as const) {
  for (const command of [start, succeed, fail]) {
    given([requested, started(1), end]).when(command).then({ _tag: 'StateConflict', code: 'job_finished' }, `${command._tag} on a ${label} job conflicts`)
  }
  given([requested, started(1), end]).when(request).then({ _tag: 'StateConflict', code: 'job_exists' }, `RequestJob on a ${label} job conflicts`)
}

for (const command of [start, succeed, fail]) {
  given([]).when(command).then({ _tag: 'NotFound', resource: 'job', id: 'j1' }, `${command._tag} on a missing job is NotFound`)
}

t.match(fold(jobDecider, [requested, started(1), started(2)]), { status: 'running', attempt: 2, org_id: 'o1' }, 'evolve tracks status and attempt')

// ---- job lifecycle: deletion, purge, blob records ----

const deleteJob: JobCommand = { _tag: 'RequestJobDeletion', job_id: 'j1', now: LATER }
const deletionRequested = new JobDeletionRequested({ job_id: 'j1', requested_at: LATER })
const purge = (held: readonly string[] = []): JobCommand => ({ _tag: 'PurgeJob', job_id: 'j1', reason: 'deletion_requested', held_artifacts: new Set(held), now: LATER })
const purgeBase = { job_id: 'j1', reason: 'deletion_requested', purged_at: LATER } as const
const artifactPurged = new ArtifactPurged({ ...purgeBase, artifact_id: 'a1', blob_key: 'jobs/j1/a1' })
const jobPurged = new JobPurged(purgeBase)
const blobDeleted: JobCommand = { _tag: 'RecordBlobDeleted', job_id: 'j1', artifact_id: 'a1', now: LATER }
const ended = [requested, started(1), succeeded, charged]

given(ended).when(deleteJob).then([deletionRequested], 'RequestJobDeletion on a finished job records the request')
given([...ended, deletionRequested]).when(deleteJob).then([], 'RequestJobDeletion twice records it once')
given([requested, started(1)]).when(deleteJob).then({ _tag: 'StateConflict', code: 'job_not_finished' }, 'RequestJobDeletion on a running job conflicts')
given([...ended, artifactPurged, jobPurged]).when(deleteJob).then({ _tag: 'NotFound', resource: 'job', id: 'j1' }, 'RequestJobDeletion on a purged job is NotFound')
given([]).when(deleteJob).then({ _tag: 'NotFound', resource: 'job', id: 'j1' }, 'RequestJobDeletion on a missing job is NotFound')

given(ended).when(purge()).then([artifactPurged, jobPurged], 'PurgeJob tombstones every artifact, then the job')
given(ended).when(purge(['a1'])).then([], 'PurgeJob with every artifact held tombstones nothing, and keeps the job')
given([...ended, artifactPurged]).when(purge()).then([jobPurged], 'PurgeJob after a crash tombstones only what is left')
given([...ended, artifactPurged, jobPurged]).when(purge()).then([], 'PurgeJob of a purged job records nothing')
given([requested, started(1)]).when(purge()).then([], 'PurgeJob of an unfinished job records nothing')
given([]).when(purge()).then({ _tag: 'NotFound', resource: 'job', id: 'j1' }, 'PurgeJob of a missing job is NotFound')

given([...ended, artifactPurged]).when(blobDeleted).then([new ArtifactBlobDeleted({ job_id: 'j1', artifact_id: 'a1', deleted_at: LATER })], 'RecordBlobDeleted records a tombstoned artifact\'s blob gone')
given([...ended, artifactPurged, new ArtifactBlobDeleted({ job_id: 'j1', artifact_id: 'a1', deleted_at: LATER })]).when(blobDeleted).then([], 'RecordBlobDeleted twice records it once')
given(ended).when(blobDeleted).then([], 'RecordBlobDeleted of an artifact not tombstoned records nothing')
given([]).when(blobDeleted).then({ _tag: 'NotFound', resource: 'job', id: 'j1' }, 'RecordBlobDeleted on a missing job is NotFound')

// ---- organizations ---------------------------------------------------------------------------------

const givenOrg = scenarioOf(t, orgDecider)
const createOrg: OrgCommand = { _tag: 'CreateOrg', org_id: 'o1', name: '  Acme  ', plan: 'pro', now: NOW }
const limits: KeyLimits = { rate_limit_rpm: 60, daily_quota: 1000, max_concurrent_jobs: null, enforcement_mode: 'block', ip_allowlist: [] }
const createKey: OrgCommand = {
  _tag: 'CreateApiKey', org_id: 'o1', key_id: 'k1', name: 'ci', key_hash: 'hash', key_prefix: 'sw_abc',
  scopes: ['jobs:write'], limits, expires_at: null, now: NOW,
}
const revoke: OrgCommand = { _tag: 'RevokeApiKey', org_id: 'o1', key_id: 'k1', now: LATER }

const orgCreated = new OrgCreated({ org_id: 'o1', name: 'Acme', plan: 'pro', created_at: NOW })
const keyCreated = new ApiKeyCreated({
  key_id: 'k1', org_id: 'o1', name: 'ci', key_hash: 'hash', key_prefix: 'sw_abc', scopes: ['jobs:write'], limits, expires_at: null, created_at: NOW,
})
const keyRevoked = new ApiKeyRevoked({ key_id: 'k1', org_id: 'o1', revoked_at: LATER })

givenOrg([]).when(createOrg).then([orgCreated], 'CreateOrg records OrgCreated with the name trimmed')
givenOrg([]).when({ ...createOrg, plan: 'platinum' })
  .then({ _tag: 'ValidationFailed', errors: [{ field: 'plan', code: 'invalid_plan' }] }, 'an unknown plan is invalid_plan')
givenOrg([]).when({ ...createOrg, name: '   ', plan: 'gold' })
  .then({ _tag: 'ValidationFailed', errors: [{ field: 'name', code: 'invalid_name' }, { field: 'plan', code: 'invalid_plan' }] }, 'every failing field is reported')
givenOrg([]).when({ ...createOrg, name: 'x'.repeat(201) }).then({ _tag: 'ValidationFailed', errors: [{ code: 'invalid_name' }] }, 'a 201-character name is invalid')
givenOrg([orgCreated]).when(createOrg).then({ _tag: 'StateConflict', code: 'org_exists' }, 'CreateOrg twice conflicts')

givenOrg([]).when(createKey).then({ _tag: 'NotFound', resource: 'org', id: 'o1' }, 'CreateApiKey on a missing org is NotFound')
givenOrg([orgCreated]).when(createKey).then([keyCreated], 'CreateApiKey records ApiKeyCreated')
givenOrg([orgCreated, keyCreated]).when(createKey).then({ _tag: 'StateConflict', code: 'key_exists' }, 'CreateApiKey twice conflicts')

givenOrg([orgCreated]).when(revoke).then({ _tag: 'NotFound', resource: 'api_key', id: 'k1' }, 'RevokeApiKey of an unknown key is NotFound')
givenOrg([]).when(revoke).then({ _tag: 'NotFound', resource: 'org' }, 'RevokeApiKey on a missing org is NotFound')
givenOrg([orgCreated, keyCreated]).when(revoke).then([keyRevoked], 'RevokeApiKey records ApiKeyRevoked')
givenOrg([orgCreated, keyCreated, keyRevoked]).when(revoke).then([], 'revoking twice records nothing')

const changePlan: OrgCommand = { _tag: 'ChangeOrgPlan', org_id: 'o1', plan: 'starter', now: LATER }
const planChanged = new OrgPlanChanged({ org_id: 'o1', plan: 'starter', previous_plan: 'pro', changed_at: LATER })
givenOrg([]).when(changePlan).then({ _tag: 'NotFound', resource: 'org', id: 'o1' }, 'ChangeOrgPlan on a missing org is NotFound')
givenOrg([orgCreated]).when(changePlan).then([planChanged], 'ChangeOrgPlan records the new plan and the previous one')
givenOrg([orgCreated]).when({ ...changePlan, plan: 'gold' }).then({ _tag: 'ValidationFailed', errors: [{ field: 'plan', code: 'invalid_plan' }] }, 'an unknown plan is invalid_plan')
givenOrg([orgCreated, planChanged]).when(changePlan).then([], 'the same plan again records nothing')
givenOrg([orgCreated, planChanged]).when({ ...changePlan, plan: 'pro' })
  .then([new OrgPlanChanged({ org_id: 'o1', plan: 'pro', previous_plan: 'starter', changed_at: LATER })], 'the previous plan follows the last change')

const setSummaries = (enabled: boolean): OrgCommand => ({ _tag: 'SetOrgSummaries', org_id: 'o1', enabled, now: LATER })
givenOrg([orgCreated]).when(setSummaries(false)).then([new OrgSummariesSet({ org_id: 'o1', enabled: false, set_at: LATER })], 'SetOrgSummaries switches them off')
givenOrg([orgCreated]).when(setSummaries(true)).then([], 'SetOrgSummaries to what holds (on by default) records nothing')
givenOrg([orgCreated, new OrgSummariesSet({ org_id: 'o1', enabled: false, set_at: LATER })]).when(setSummaries(true))
  .then([new OrgSummariesSet({ org_id: 'o1', enabled: true, set_at: LATER })], 'and back on')
givenOrg([]).when(setSummaries(false)).then({ _tag: 'NotFound', resource: 'org', id: 'o1' }, 'SetOrgSummaries on a missing org is NotFound')
