import { randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import t from 'tap'
import { makeManualClock } from '../../infra/clock/manual.js'
import { startProcess } from '../../infra/process.js'
import { ReadModels } from '../../infra/read-models.js'
import { replayProjections } from '../../infra/replay.js'
import { purgeSweep } from '../../infra/roles/purger.js'
import { admissionUsage } from '../../projections/usage-queries.js'
import { startFixtureSite } from '../fixtures/site.js'
import { startService, tempDataDir, waitFor, type Service } from '../helpers/service.js'

/**
 * After a purge, the API (lists, gets, artifact links), signed URLs issued before it, the audit trail and a full
 * replay all agree that the job and its artifacts are gone; credits stay charged. Run on each blob store: the local
 * folder, and Azure Blob Storage (Azurite) when configured (required with REQUIRE_SERVICES=1).
 */
const site = await startFixtureSite()
t.teardown(() => site.close())

const DAY_MS = 86_400_000
const silent = { info: () => {}, warn: () => {}, error: () => {} }

const purgeScenario = (label: string, env: Record<string, string>) => t.test(`purge on ${label}`, async (t) => {
  const dataDir = tempDataDir('sw-purge')
  const clock = makeManualClock(new Date())
  const start = () => startService({ dataDir, clock, allowlist: [`127.0.0.1:${site.port}`], env: {
    ...env, PURGE_INTERVAL_SECONDS: '3600',
    // Signed URLs expire by the clock: one issued now must still be valid 31 days on, so its 404 comes from the purge.
    ARTIFACT_URL_TTL_SECONDS: String(40 * 86_400),
  } })
  let svc: Service = await start()
  t.teardown(() => svc.close())
  const { key, org_id } = await svc.createOrg('pro')

  const runJob = async () => {
    const submitted = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `${site.origin}/page` } })
    const result = await svc.waitForResult(key, submitted.body.job_id)
    t.equal(result.body.status, 'succeeded')
    return result.body as { job_id: string; artifacts: { artifact_id: string }[] }
  }
  const expired = await runJob()
  const kept = await runJob()
  const artifactId = expired.artifacts[0]!.artifact_id
  const link = await svc.api('GET', `/v1/jobs/${expired.job_id}/artifacts/${artifactId}`, { key })
  t.equal(link.status, 200)
  t.equal((await fetch(link.body.url)).status, 200, 'the signed URL works before the purge')
  const issuedBy = svc.port
  // Credits of the month the jobs ran in (the clock moves a month on before the purge, so /v1/usage shows another month).
  const jobsRanAt = clock.now()
  const credits = () => svc.run(admissionUsage(org_id, null, jobsRanAt))
  const usageBefore = await credits()
  t.ok(usageBefore.creditsUsed > 0, 'the jobs were charged')

  const refused = await svc.api('POST', '/v1/org/retention-holds', { key, body: { scope_type: 'job', scope_ref: kept.job_id, justification: 'too early' } })
  t.equal(refused.body.error?.code, 'legal_holds_disabled', 'no hold while the policy has legal holds off')
  // Hold `kept`; a dry run as of 31 days later (both jobs past the 30 days of the Pro plan) counts, changes nothing.
  t.equal((await svc.api('PUT', '/v1/org/retention-policy', { key, body: { retention_days: 30, legal_hold_enabled: true } })).status, 200)
  const hold = await svc.api('POST', '/v1/org/retention-holds', { key, body: { scope_type: 'job', scope_ref: kept.job_id, justification: 'litigation 42' } })
  t.equal(hold.status, 201)
  const asOf = new Date(clock.now().getTime() + 31 * DAY_MS)
  const dryRun = await svc.run(purgeSweep(svc.config, silent, { now: asOf, dryRun: true }))
  t.same(dryRun, { jobs_purged: 1, artifacts_purged: expired.artifacts.length, blobs_deleted: 0, held_skipped: 1 }, 'a dry run counts the unheld job')
  t.equal((await svc.api('GET', `/v1/jobs/${expired.job_id}`, { key })).status, 200, 'a dry run purges nothing')

  // The purger's timer runs on the manual clock: moving it wakes the sweep.
  clock.set(asOf)
  await waitFor(async () => (await svc.api('GET', `/v1/jobs/${expired.job_id}`, { key })).status === 404, 20_000)

  const assertGone = async (when: string) => {
    t.equal((await svc.api('GET', `/v1/jobs/${expired.job_id}`, { key })).status, 404, `${when}: get answers 404`)
    t.equal((await svc.api('GET', `/v1/jobs/${expired.job_id}/result`, { key })).status, 404, `${when}: result answers 404`)
    t.equal((await svc.api('GET', `/v1/jobs/${expired.job_id}/artifacts/${artifactId}`, { key })).status, 404, `${when}: a new artifact link answers 404`)
    const list = await svc.api('GET', '/v1/jobs?per_page=100', { key })
    t.same(list.body.items.map((j: any) => j.job_id), [kept.job_id], `${when}: the list shows only the held job`)
    // A restarted embedded service listens elsewhere: the same signed URL, on its new address.
    const signed = new URL(link.body.url)
    if (signed.port === String(issuedBy)) signed.port = String(svc.port)
    t.equal((await fetch(signed)).status, 404, `${when}: the signed URL issued before the purge answers 404`)
    t.equal((await svc.api('GET', `/v1/jobs/${kept.job_id}`, { key })).status, 200, `${when}: the held job stays`)
    const usage = await credits()
    t.equal(usage.creditsUsed, usageBefore.creditsUsed, `${when}: credits charged stay charged`)
    t.equal(usage.jobsCharged, usageBefore.jobsCharged, `${when}: jobs charged stay counted`)
  }
  await waitFor(async () => (await svc.api('GET', `/v1/audit-log?type=ArtifactBlobDeleted`, { key })).body.total === expired.artifacts.length, 20_000)
  await assertGone('after the purge')
  const purged = await svc.api('GET', '/v1/audit-log?type=JobPurged', { key })
  t.equal(purged.body.total, 1, 'the purge is in the audit trail')
  t.match(purged.body.items[0], { actor: 'purger', detail: { job_id: expired.job_id, reason: 'retention_expired' } })

  // Rebuild every read model from the log: the audit trail answers the same, and the purged job does not come back.
  const auditBefore = (await svc.api('GET', '/v1/audit-log?per_page=100', { key })).body
  t.ok(auditBefore.total > 0 && auditBefore.total <= 100, 'the whole audit trail on one page')
  await svc.close()
  const offline = await startProcess(svc.config, [], silent, { clock })
  await offline.run(Effect.flatMap(ReadModels, replayProjections))
  await offline.close()
  svc = await start()
  t.same((await svc.api('GET', '/v1/audit-log?per_page=100', { key })).body, auditBefore, 'the audit trail after a replay is identical')
  await assertGone('after a full replay')
})

purgeScenario('the local folder', { BLOB_STORE: 'local' })

const azure = process.env.AZURE_BLOB_CONNECTION_STRING
if (azure) {
  purgeScenario('Azure Blob Storage (Azurite)', { BLOB_STORE: 'azure', AZURE_BLOB_CONNECTION_STRING: azure, AZURE_BLOB_CONTAINER: `purge-${randomUUID().slice(0, 8)}` })
} else if (process.env.REQUIRE_SERVICES === '1') {
  t.fail('Azure Blob Storage: AZURE_BLOB_CONNECTION_STRING is not set but REQUIRE_SERVICES=1')
} else {
  t.test('purge on Azure Blob Storage (Azurite)', { skip: 'set AZURE_BLOB_CONNECTION_STRING to run it' }, async () => {})
}
