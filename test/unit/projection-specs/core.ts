import type { Test } from 'tap'
import { handle, type Timed } from '../../../commands/handle.js'
import type { Decider } from '../../../domain/decider.js'
import { STREAMS, type DomainEvent } from '../../../domain/streams.js'
import { jobDecider, type JobCommand } from '../../../domain/job/decider.js'
import type { ArtifactRecord } from '../../../domain/job/events.js'
import { validateJobSpec } from '../../../domain/job/spec.js'
import { orgDecider, type OrgCommand } from '../../../domain/org/decider.js'
import type { KeyLimits } from '../../../domain/org/events.js'
import { emailClaimDecider } from '../../../domain/user/email-claim.js'
import { userDecider, type UserCommand } from '../../../domain/user/decider.js'
import { emailHash } from '../../../domain/user/identity.js'
import type { Doc } from '../../../ports/document-store.js'
import type { RecordedEvent } from '../../../ports/event-store.js'
import { memoryServices, TEST_METADATA } from '../../helpers/memory-services.js'
import type { Documents, ProjectionSpecFile } from '../../helpers/projection-spec.js'

// ---- a realistic history: two organizations, their keys, a user, and jobs through every outcome ----------------

const ORG = 'org-a'
const OTHER_ORG = 'org-b'
const USER = 'user-1'
const at = (minute: number) => new Date(Date.UTC(2024, 4, 31, 23, minute)).toISOString()
const limits: KeyLimits = { rate_limit_rpm: 600, daily_quota: 50_000, max_concurrent_jobs: null, enforcement_mode: 'block', ip_allowlist: [] }
const artifact = (jobId: string, type: string): ArtifactRecord => ({
  artifact_id: `${jobId}-${type}`, artifact_type: type, content_type: 'text/html', size: 42, sha256: 'a'.repeat(64),
  blob_key: `jobs/${ORG}/${jobId}/${type}`, created_at: at(30),
})
const jobSpec = (jobType: string, tags: string[] = []) => {
  const result = validateJobSpec({ job_type: jobType, target_url: 'https://example.com/item', tags }, { allowlist: new Set(), isTimeZone: () => true })
  if (!result.ok) throw new Error(`invalid test spec: ${JSON.stringify(result.errors)}`)
  return result.spec
}

/** A job command before it names its job (Omit spread over each member of the union). */
type WithoutJobId<C> = C extends unknown ? Omit<C, 'job_id'> : never

const recordHistory = async (): Promise<readonly RecordedEvent[]> => {
  const { run, events } = memoryServices()
  const command = <C extends Timed, E extends DomainEvent, S, Err>(decider: Decider<C, E, S, Err>, stream: string, orgId: string, actor: string) =>
    (c: C) => run(handle(decider, stream, c, { org_id: orgId, metadata: { ...TEST_METADATA, actor } }))
  const org = (orgId: string) => command(orgDecider, STREAMS.org.stream(orgId), orgId, 'operator')
  const job = (jobId: string, orgId = ORG) => (c: WithoutJobId<JobCommand>) =>
    command(jobDecider, STREAMS.job.stream(jobId), orgId, 'api_key:k1')({ ...c, job_id: jobId } as JobCommand)
  const user = (c: UserCommand) => command(userDecider, STREAMS.user.stream(USER), ORG, `user:${USER}`)(c)
  const createKey = (orgId: string, keyId: string, minute: number): OrgCommand => ({
    _tag: 'CreateApiKey', org_id: orgId, key_id: keyId, name: `key ${keyId}`, key_hash: `hash-${keyId}`.padEnd(64, '0'),
    key_prefix: `sk_${keyId}`, scopes: ['jobs:write', 'jobs:read'], limits, expires_at: null, now: at(minute),
  })
  const request = (orgId: string, keyId: string | null, jobType: string, minute: number, tags: string[] = []) =>
    ({ _tag: 'RequestJob' as const, origin: { _tag: 'api' } as const, org_id: orgId, api_key_id: keyId, spec: jobSpec(jobType, tags), now: at(minute) })

  await org(ORG)({ _tag: 'CreateOrg', org_id: ORG, name: 'Acme', plan: 'pro', now: at(0) })
  await org(OTHER_ORG)({ _tag: 'CreateOrg', org_id: OTHER_ORG, name: 'Globex', plan: 'free', now: at(0) })
  await org(ORG)(createKey(ORG, 'k1', 1))
  await org(ORG)(createKey(ORG, 'k2', 1))
  await org(OTHER_ORG)(createKey(OTHER_ORG, 'k3', 2))
  await command(emailClaimDecider, STREAMS.email.stream(emailHash('ada@example.com')), '', 'anonymous')(
    { _tag: 'ClaimEmail', email_hash: emailHash('ada@example.com'), user_id: USER, now: at(2) })
  await user({
    _tag: 'RegisterUser', user_id: USER, email: 'ada@example.com', password_hash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA', org_id: ORG,
    token_hash: 'b'.repeat(64), token_expires_at: at(59), now: at(2),
  })
  await job('j1')(request(ORG, 'k1', 'light', 3, ['prod']))
  await job('j2')(request(ORG, 'k1', 'standard', 3))
  await job('j1')({ _tag: 'StartJob', worker_id: 'w1', now: at(4) })
  await user({ _tag: 'RecordVerificationEmailSent', user_id: USER, token_hash: 'b'.repeat(64), message_id: '<m1@example.com>', now: at(4) })
  await job('j3', OTHER_ORG)(request(OTHER_ORG, 'k3', 'stealth', 5))
  await job('j2')({ _tag: 'StartJob', worker_id: 'w2', now: at(5) })
  await job('j1')({ _tag: 'SucceedJob', manifest: { http_status: 200 }, artifacts: [artifact('j1', 'html')], now: at(6) })
  await org(ORG)({ _tag: 'RevokeApiKey', org_id: ORG, key_id: 'k2', now: at(7) })
  await job('j2')({ _tag: 'FailJob', failure_reason: 'timeout', message: 'the page did not load in time', now: at(8) })
  await job('j3', OTHER_ORG)({ _tag: 'StartJob', worker_id: 'w1', now: at(9) })
  await user({ _tag: 'VerifyEmail', user_id: USER, token_hash: 'b'.repeat(64), now: at(10) })
  // The worker died: the job is started again, then succeeds in the next month (it is charged to June).
  await job('j3', OTHER_ORG)({ _tag: 'StartJob', worker_id: 'w2', now: at(10) })
  await org(ORG)({ _tag: 'SetOrgIpAllowlist', org_id: ORG, ip_allowlist: ['203.0.113.0/24'], now: at(41) })
  await job('j4')(request(ORG, 'k2', 'light', 42))
  await job('j3', OTHER_ORG)({ _tag: 'SucceedJob', manifest: { http_status: 200 }, artifacts: [], now: '2024-06-01T00:00:05.000Z' })
  return run(events.readAll(0, 10_000))
}

// ---- what each projection's documents say ---------------------------------------------------------------------

const byId = (docs: readonly Doc[], id: string) => docs.find((d) => d._id === id)

const expectations: Readonly<Record<string, (t: Test, documents: Documents) => void>> = {
  'projection.jobs': (t, { jobs }) => {
    t.same(jobs!.map((j) => [j._id, j.status]), [['j1', 'succeeded'], ['j2', 'failed'], ['j3', 'succeeded'], ['j4', 'queued']])
    t.match(byId(jobs!, 'j1'), { org_id: ORG, tags: ['prod'], attempts: 1, manifest: { http_status: 200 }, artifacts: [{ artifact_id: 'j1-html' }] })
    t.match(byId(jobs!, 'j2'), { failure_reason: 'timeout', failure_message: 'the page did not load in time', artifacts: [] })
    t.match(byId(jobs!, 'j3'), { org_id: OTHER_ORG, attempts: 2, finished_at: '2024-06-01T00:00:05.000Z' })
  },
  'projection.orgs': (t, { orgs, api_keys, api_key_hashes }) => {
    t.match(byId(orgs!, ORG), { plan: 'pro', ip_allowlist: ['203.0.113.0/24'] })
    t.match(byId(orgs!, OTHER_ORG), { plan: 'free', ip_allowlist: [] })
    t.same(api_keys!.map((k) => [k._id, k.revoked_at]), [['k1', null], ['k2', at(7)], ['k3', null]])
    t.same(api_key_hashes!.map((h) => h.key_id).sort(), ['k1', 'k2', 'k3'], 'a hash document per key, revoked ones too')
  },
  'projection.credits': (t, { credit_usage, usage_counters }) => {
    t.same(credit_usage!.map((u) => [u._id, u.credits_used, u.jobs_charged]), [[`${ORG}:2024-05`, 1, 1], [`${OTHER_ORG}:2024-06`, 30, 1]],
      'succeeded jobs only, in the month they finished')
    t.match(byId(usage_counters!, `org:${ORG}`), { active_jobs: 1, reserved_credits: 1 }, 'j4 is still active')
    t.match(byId(usage_counters!, `org:${OTHER_ORG}`), { active_jobs: 0, reserved_credits: 0 })
    t.match(byId(usage_counters!, 'key:k1'), { active_jobs: 0 })
    t.match(byId(usage_counters!, 'keyday:k1:2024-05-31'), { jobs: 2 })
  },
  'projection.audit': (t, { audit }) => {
    t.equal(audit!.length, 24, 'one entry per event of an organization, job or user stream (the two succeeded jobs\' charges included)')
    const text = JSON.stringify(audit)
    for (const secret of ['key_hash', 'password_hash', 'token_hash', '$argon2id']) t.notOk(text.includes(secret), `no ${secret} in the audit log`)
    t.match(audit!.find((e) => e.type === 'ApiKeyRevoked'), { org_id: ORG, actor: 'operator', detail: { key_id: 'k2' } })
  },
  'projection.users': (t, { users, user_emails }) => {
    t.same(users!.map((u) => ({ ...u, _position: 0 })), [{
      _id: USER, _position: 0, user_id: USER, email: 'ada@example.com', org_id: ORG, role: 'owner', is_verified: true, created_at: at(2), verified_at: at(10),
    }])
    t.same(user_emails!.map((e) => [e._id, e.user_id]), [[emailHash('ada@example.com'), USER]])
  },
}

/** The core read models (jobs, organizations, credits, audit, users) over one history of organizations, keys, a user and jobs. */
export const spec: ProjectionSpecFile = { history: recordHistory, expectations }
