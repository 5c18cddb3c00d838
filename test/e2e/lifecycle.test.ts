import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Effect } from 'effect'
import t from 'tap'
import { SCOPES } from '../../domain/scopes.js'
import { makeManualClock } from '../../infra/clock/manual.js'
import { BlobStore } from '../../ports/blob-store.js'
import { EventStore } from '../../ports/event-store.js'
import { LIFECYCLE_JOBS } from '../../projections/lifecycle.js'
import { getDoc } from '../../projections/projection.js'
import { startFixtureSite } from '../fixtures/site.js'
import { runCli, runCliRaw } from '../helpers/process.js'
import { startService, tempDataDir, waitFor } from '../helpers/service.js'

/**
 * The lifecycle through its real surfaces: `DELETE /v1/jobs/{id}`, hold release through the API, `cli purge` and
 * `cli audit verify` run through the CLI's own entry point against the data folder of a running service, whose
 * purger sweeps on a manual clock.
 */
const site = await startFixtureSite()
t.teardown(() => site.close())

const DAY_MS = 86_400_000
const PURGE_TYPES = new Set(['JobDeletionRequested', 'JobPurged', 'ArtifactPurged', 'ArtifactBlobDeleted'])

const dataDir = tempDataDir('sw-lifecycle')
const clock = makeManualClock(new Date())
const start = clock.now()
const svc = await startService({ dataDir, clock, allowlist: [`127.0.0.1:${site.port}`], env: { PURGE_INTERVAL_SECONDS: '3600' } })
t.teardown(() => svc.close())
const cliEnv = { DATA_DIR: dataDir, LOG_LEVEL: 'info', SSRF_ALLOWLIST: `127.0.0.1:${site.port}` }

const a = await svc.createOrg('pro')
const b = await svc.createOrg('pro')
/** Setup steps that must work for the tests to mean anything; failing them is an error, not an assertion. */
const expect = (ok: boolean, what: string) => { if (!ok) throw new Error(`setup failed: ${what}`) }
expect((await svc.api('PUT', '/v1/org/retention-policy', { key: a.key, body: { retention_days: 30, legal_hold_enabled: true } })).status === 200, 'legal holds on')

const runJob = async (key: string, path = '/page') => {
  const submitted = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `${site.origin}${path}` } })
  const result = await svc.waitForResult(key, submitted.body.job_id)
  expect(result.body.status === 'succeeded', `job ${submitted.body.job_id} succeeded`)
  return result.body as { job_id: string; artifacts: { artifact_id: string }[] }
}
const status = async (key: string, jobId: string) => (await svc.api('GET', `/v1/jobs/${jobId}`, { key })).status
const blobKeys = async (jobId: string) => (await svc.run(getDoc(LIFECYCLE_JOBS, jobId)))!.artifacts.map((x) => x.blob_key)
const blobExists = async (key: string) => (await svc.run(Effect.either(Effect.flatMap(BlobStore, (blobs) => blobs.get(key)))))._tag === 'Right'
const purgeEvents = async () => (await svc.run(Effect.flatMap(EventStore, (store) => store.readAll(0, 1_000_000)))).filter((e) => PURGE_TYPES.has(e.type)).length
const placeHold = async (key: string, scope_type: string, scope_ref: string) => {
  const placed = await svc.api('POST', '/v1/org/retention-holds', { key, body: { scope_type, scope_ref, justification: `case ${scope_ref}` } })
  expect(placed.status === 201, `hold on ${scope_type} ${scope_ref} placed`)
  return placed.body.hold_id as string
}
const release = (key: string, holdId: string) => svc.api('POST', `/v1/org/retention-holds/${holdId}/release`, { key, body: { justification: 'case closed' } })
const asOf = (days: number) => new Date(start.getTime() + days * DAY_MS).toISOString()

// Jobs of organization A: deleted on request, held by a job hold, held twice by artifact holds, plain; and B's.
const deleted = await runJob(a.key)
const jobHeld = await runJob(a.key)
const artifactHeld = await runJob(a.key)
const plain = await runJob(a.key)
const ofB = await runJob(b.key)
const jobHold = await placeHold(a.key, 'job', jobHeld.job_id)
/** Finished during the first test: unheld, so it expires with `plain`. */
let slowJob: { job_id: string; artifacts: { artifact_id: string }[] } = { job_id: '', artifacts: [] }
const artifactHolds = [
  await placeHold(a.key, 'artifact', artifactHeld.artifacts[0]!.artifact_id),
  await placeHold(a.key, 'artifact', artifactHeld.artifacts[0]!.artifact_id),
]

t.test('DELETE /v1/jobs/{id}: 202, then the purger removes the job at its next sweep', async (t) => {
  const deletedBlobs = await blobKeys(deleted.job_id)
  t.ok(deletedBlobs.length > 0 && (await Promise.all(deletedBlobs.map(blobExists))).every(Boolean), 'the artifacts are stored')

  const other = await svc.api('DELETE', `/v1/jobs/${deleted.job_id}`, { key: b.key })
  t.equal(other.status, 404, "another organization's job answers 404")
  t.equal(other.body.error.code, 'job_not_found')
  for (const job of [jobHeld, artifactHeld]) {
    const refused = await svc.api('DELETE', `/v1/jobs/${job.job_id}`, { key: a.key })
    t.equal(refused.status, 409, `held job ${job.job_id} answers 409`)
    t.equal(refused.body.error.code, 'legal_hold_active')
  }
  const slow = await svc.api('POST', '/v1/jobs', { key: a.key, body: { job_type: 'light', target_url: `${site.origin}/slow?ms=1500` } })
  t.equal((await svc.api('DELETE', `/v1/jobs/${slow.body.job_id}`, { key: a.key })).body.error?.code, 'job_not_finished', 'an unfinished job cannot be deleted')
  const slowResult = await svc.waitForResult(a.key, slow.body.job_id)
  t.equal(slowResult.body.status, 'succeeded')
  slowJob = slowResult.body

  const accepted = await svc.api('DELETE', `/v1/jobs/${deleted.job_id}`, { key: a.key })
  t.equal(accepted.status, 202)
  t.same(accepted.body, { job_id: deleted.job_id, deletion_requested: true })
  t.equal((await svc.api('DELETE', `/v1/jobs/${deleted.job_id}`, { key: a.key })).status, 202, 'asking again answers 202')
  const requested = await svc.api('GET', '/v1/audit-log?type=JobDeletionRequested', { key: a.key })
  t.equal(requested.body.total, 1, 'asking twice records one deletion request')
  t.equal(requested.body.items[0].actor, `api_key:${a.key_id}`, 'the request is audited with its actor')
  t.equal(await status(a.key, deleted.job_id), 200, 'the job stays until the next sweep')

  // The purger's timer runs on the manual clock: one interval later it sweeps (well inside the 30 days of retention).
  clock.advance(3600 * 1000)
  await waitFor(async () => (await svc.api('GET', '/v1/audit-log?type=ArtifactBlobDeleted', { key: a.key })).body.total === deleted.artifacts.length, 20_000)
  await waitFor(async () => (await status(a.key, deleted.job_id)) === 404, 20_000)
  t.equal((await svc.api('GET', `/v1/jobs/${deleted.job_id}/result`, { key: a.key })).status, 404, 'the result answers 404')
  t.notOk((await Promise.all(deletedBlobs.map(blobExists))).some(Boolean), 'every blob of the job is deleted')
  const purged = await svc.api('GET', '/v1/audit-log?type=JobPurged', { key: a.key })
  t.equal(purged.body.total, 1, 'only the deleted job is purged')
  t.match(purged.body.items[0], { actor: 'purger', detail: { job_id: deleted.job_id, reason: 'deletion_requested' } })
  t.equal((await svc.api('DELETE', `/v1/jobs/${deleted.job_id}`, { key: a.key })).status, 404, 'a purged job answers 404 to a new deletion')
  for (const job of [jobHeld, artifactHeld, plain]) t.equal(await status(a.key, job.job_id), 200, `${job.job_id} stays`)
  t.equal(await status(b.key, ofB.job_id), 200, "B's job stays")
})

t.test('cli purge: a dry run changes nothing; the real run purges exactly the expired, unheld jobs', async (t) => {
  // A job requested 20 days on is not expired 31 days after the start.
  clock.set(new Date(start.getTime() + 20 * DAY_MS))
  const recent = await runJob(a.key)
  const before = await purgeEvents()
  const plainBlobs = await blobKeys(plain.job_id)
  const expiredArtifacts = plain.artifacts.length + slowJob.artifacts.length + ofB.artifacts.length

  const dry = await runCli(cliEnv, ['purge', '--as-of', asOf(31), '--dry-run'])
  t.same(dry, {
    as_of: asOf(31), dry_run: true, jobs_purged: 3, artifacts_purged: expiredArtifacts, blobs_deleted: 0, held_skipped: 2,
  }, 'the dry run counts the expired unheld jobs (plain, slow, B) and the held ones')
  t.equal(await purgeEvents(), before, 'the dry run recorded nothing')
  t.ok((await Promise.all(plainBlobs.map(blobExists))).every(Boolean), 'the dry run deleted no blob')
  t.equal(await status(a.key, plain.job_id), 200)

  const real = await runCliRaw(cliEnv, ['purge', '--as-of', asOf(31), '--json'])
  t.equal(real.code, 0)
  t.same(JSON.parse(real.stdout), {
    as_of: asOf(31), dry_run: false, jobs_purged: 3, artifacts_purged: expiredArtifacts, blobs_deleted: expiredArtifacts, held_skipped: 2,
  })
  t.match(real.stderr, new RegExp(`"msg":"purge: job tombstoned","detail":\\{[^}]*"job_id":"${plain.job_id}"`), 'the purge is recorded in the system log')
  await waitFor(async () => (await status(a.key, plain.job_id)) === 404 && (await status(a.key, slowJob.job_id)) === 404 && (await status(b.key, ofB.job_id)) === 404, 20_000)
  t.notOk((await Promise.all(plainBlobs.map(blobExists))).some(Boolean), 'the blobs are deleted')
  for (const job of [jobHeld, artifactHeld, recent]) t.equal(await status(a.key, job.job_id), 200, `${job.job_id} stays (held or not expired)`)
  const list = await svc.api('GET', '/v1/jobs?per_page=100', { key: a.key })
  t.same(new Set(list.body.items.map((j: { job_id: string }) => j.job_id)), new Set([jobHeld.job_id, artifactHeld.job_id, recent.job_id]), 'the list shows the held and the recent jobs only')

  const bad = await runCliRaw(cliEnv, ['purge', '--as-of', 'next tuesday'])
  t.equal(bad.code, 2, 'a bad --as-of is bad input: exit 2')
  t.match(bad.stderr, /--as-of takes an ISO 8601 instant/)
})

t.test('releasing holds through the API makes the job purgeable; several holds on one scope accumulate', async (t) => {
  const byB = await release(b.key, jobHold)
  t.equal(byB.status, 404, "another organization's hold answers 404")
  t.equal(byB.body.error.code, 'hold_not_found')
  const released = await release(a.key, jobHold)
  t.equal(released.status, 200)
  t.match(released.body, { hold_id: jobHold, status: 'released', released_by: `api_key:${a.key_id}`, release_justification: 'case closed' })
  t.equal((await release(a.key, jobHold)).body.error?.code, 'hold_already_released')

  t.equal((await release(a.key, artifactHolds[0]!)).status, 200, 'one of two artifact holds released')
  const active = await svc.api('GET', '/v1/org/retention-holds?status=active', { key: a.key })
  t.same(active.body.items.map((h: { hold_id: string }) => h.hold_id), [artifactHolds[1]], 'the other artifact hold is still in force')

  const first = await runCli(cliEnv, ['purge', '--as-of', asOf(31)])
  t.match(first, { jobs_purged: 1, held_skipped: 1 }, 'the released job is purged; the job under the remaining hold is not')
  await waitFor(async () => (await status(a.key, jobHeld.job_id)) === 404, 20_000)
  t.equal(await status(a.key, artifactHeld.job_id), 200)
  t.equal((await svc.api('DELETE', `/v1/jobs/${artifactHeld.job_id}`, { key: a.key })).body.error?.code, 'legal_hold_active', 'still held for deletion too')

  t.equal((await release(a.key, artifactHolds[1]!)).status, 200)
  const second = await runCli(cliEnv, ['purge', '--as-of', asOf(31)])
  t.match(second, { jobs_purged: 1, artifacts_purged: artifactHeld.artifacts.length, held_skipped: 0 }, 'after the last release the job is purged')
  await waitFor(async () => (await status(a.key, artifactHeld.job_id)) === 404, 20_000)
})

t.test('the audit export verifies with cli audit verify; a changed or removed record is named', async (t) => {
  const exported = await fetch(`${svc.base}/v1/audit-log/export`, { headers: { 'x-api-key': a.key } })
  t.equal(exported.status, 200)
  t.match(exported.headers.get('content-type'), /^application\/x-ndjson/)
  const text = await exported.text()
  const lines = text.trim().split('\n')
  const listed = await svc.api('GET', '/v1/audit-log?per_page=1', { key: a.key })
  t.equal(lines.length, listed.body.total, 'one record per audit entry')
  const records = lines.map((line) => JSON.parse(line) as { event_id: string; type: string; chain: { mac: string } })
  t.same(new Set(records.map((r) => r.type).filter((type) => ['JobPurged', 'LegalHoldReleased', 'RetentionPolicySet'].includes(type))), new Set(['JobPurged', 'LegalHoldReleased', 'RetentionPolicySet']))
  t.notOk(text.includes(ofB.job_id), "no record of another organization's job")

  const file = join(dataDir, 'audit.ndjson')
  writeFileSync(file, text)
  const verified = await runCli(cliEnv, ['audit', 'verify', file])
  t.match(verified, { ok: true, records: lines.length, org_id: a.org_id, last_mac: records[records.length - 1]!.chain.mac }, 'the whole export verifies')
  t.match(await runCli(cliEnv, ['audit', 'verify']), { ok: true }, 'and so does the event store')

  // Change the actor of one record in the middle: that record is named, and the exit code is 1.
  const victim = Math.floor(lines.length / 2)
  const changed = JSON.parse(lines[victim]!) as { metadata: { actor: string } }
  changed.metadata.actor = 'someone-else'
  const tampered = [...lines]
  tampered[victim] = JSON.stringify(changed)
  writeFileSync(file, `${tampered.join('\n')}\n`)
  const broken = await runCliRaw(cliEnv, ['audit', 'verify', file])
  t.equal(broken.code, 1, 'a changed record fails verification')
  t.match(JSON.parse(broken.stdout), { ok: false, line: victim + 1, event_id: records[victim]!.event_id, records: victim, reason: /the record was changed/ })

  // Remove one record: the record after the gap is named.
  writeFileSync(file, `${lines.filter((_, i) => i !== victim).join('\n')}\n`)
  const gap = await runCliRaw(cliEnv, ['audit', 'verify', file])
  t.equal(gap.code, 1, 'a removed record fails verification')
  t.match(JSON.parse(gap.stdout), { ok: false, line: victim + 1, event_id: records[victim + 1]!.event_id, reason: /removed, added or reordered/ })

  const filtered = await fetch(`${svc.base}/v1/audit-log/export?type=JobPurged`, { headers: { 'x-api-key': a.key } })
  const purgedLines = (await filtered.text()).trim().split('\n')
  t.equal(purgedLines.length, 5, 'a filtered export holds the five purges of A (deleted, plain, slow, and the two released)')
})

t.test('jobs.delete: an older key lacks it until an operator grants it with cli key grant', async (t) => {
  const c = await svc.createOrg('pro', SCOPES.filter((scope) => scope !== 'jobs.delete'))
  const job = await runJob(c.key)
  const refused = await svc.api('DELETE', `/v1/jobs/${job.job_id}`, { key: c.key })
  t.equal(refused.status, 403)
  t.equal(refused.body.error.code, 'missing_scope')
  const wider = await svc.api('POST', '/v1/keys', { key: c.key, body: { name: 'deleter', scopes: ['jobs.delete'] } })
  t.equal(wider.body.error?.code, 'key_exceeds_creator', 'the older key cannot mint a key with the new scope either')

  t.same(await runCli(cliEnv, ['key', 'grant', '--org', c.org_id, '--key', c.key_id, '--scopes', 'jobs.delete']), { org_id: c.org_id, key_id: c.key_id, scopes_added: ['jobs.delete'] })
  await waitFor(async () => (await svc.api('GET', '/v1/keys', { key: c.key })).body.items?.[0]?.scopes.includes('jobs.delete'), 20_000)
  t.equal((await svc.api('DELETE', `/v1/jobs/${job.job_id}`, { key: c.key })).status, 202, 'after the grant the same key deletes')
  const audited = await svc.api('GET', '/v1/audit-log?type=ApiKeyScopesGranted', { key: c.key })
  t.equal(audited.body.total, 1)
  t.match(audited.body.items[0], { actor: 'cli', detail: { key_id: c.key_id, scopes: ['jobs.delete'] } }, 'the grant is audited with its actor')

  const unknown = await runCliRaw(cliEnv, ['key', 'grant', '--org', c.org_id, '--key', c.key_id, '--scopes', 'jobs.destroy'])
  t.equal(unknown.code, 2, 'an unknown scope is bad input: exit 2')
  t.match(unknown.stderr, /unknown: jobs.destroy/)
})
