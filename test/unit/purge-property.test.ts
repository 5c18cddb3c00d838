import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Effect } from 'effect'
import t from 'tap'
import { handle } from '../../commands/handle.js'
import { requestJobDeletion } from '../../commands/purge.js'
import { placeHold, releaseHold, setRetentionPolicy } from '../../commands/retention.js'
import { jobDecider } from '../../domain/job/decider.js'
import { validateJobSpec } from '../../domain/job/spec.js'
import { coverage, isHeld, retentionCutoff } from '../../domain/retention/coverage.js'
import { STREAMS } from '../../domain/streams.js'
import { makeLocalBlobStore } from '../../infra/blob/local-folder.js'
import { makeManualClock } from '../../infra/clock/manual.js'
import { makeSqliteDocumentStore } from '../../infra/sqlite/document-store.js'
import { makeSqliteEventStore } from '../../infra/sqlite/event-store.js'
import { sweep } from '../../processors/purger.js'
import { Clock } from '../../ports/clock.js'
import { PROJECTIONS } from '../../projections/index.js'
import { LIFECYCLE_JOBS } from '../../projections/lifecycle.js'
import { findDocs } from '../../projections/projection.js'
import { purgeWork } from '../../projections/purge-work.js'
import { activeHolds, effectivePolicy } from '../../projections/retention-queries.js'
import { memoryServices, storeServices, TEST_METADATA } from '../helpers/memory-services.js'

/**
 * Random interleavings (seeded) of jobs, holds (several per scope), releases, retention policy changes (shorter and
 * longer), deletion requests and sweeps, with a manual clock, on the in-memory stores and on the SQLite adapters with a
 * local blob folder. After every sweep, under the policy in force: no held item is purged, every due unheld item
 * (expired, or its deletion requested) is purged with its blobs, and nothing that is not due is touched.
 */
const ORG = 'org-p'
const PLAN = 'enterprise'
const DAY = 86_400_000
/** Retention days a policy change picks from: around the job ages the clock steps make (0-19 days a step). */
const RETENTION_CHOICES = [3, 10, 20, 30, 45, 90, 365]
const spec = (() => {
  const r = validateJobSpec({ job_type: 'light', target_url: 'https://example.com/' }, { allowlist: new Set(), isTimeZone: () => true })
  if (!r.ok) throw new Error('spec')
  return r.spec
})()
const rng = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)

type Services = ReturnType<typeof memoryServices>
const STORES: Record<string, () => { services: Services; close: () => void | Promise<void> }> = {
  memory: () => ({ services: memoryServices(), close: () => {} }),
  SQLite: () => {
    const dir = mkdtempSync(join(tmpdir(), 'sw-purge-prop-'))
    const events = makeSqliteEventStore(join(dir, 'events.db'))
    const docs = makeSqliteDocumentStore(join(dir, 'docs.db'))
    const blobs = makeLocalBlobStore({ root: join(dir, 'blobs'), downloadBase: 'http://127.0.0.1/artifacts/download', signingSecret: 'property-test', log: () => {} })
    return { services: storeServices(events, docs, blobs), close: async () => { events.db.close(); docs.db.close(); await blobs.close(); rmSync(dir, { recursive: true, force: true }) } }
  },
}
const SEEDS: Record<string, readonly number[]> = { memory: [1, 2, 3, 4, 5, 6, 7, 8], SQLite: [1, 2, 3] }

for (const [label, open] of Object.entries(STORES)) {
  for (const seed of SEEDS[label]!) {
    t.test(`${label}, seed ${seed}`, async (t) => {
      const random = rng(seed)
      const pick = <A>(items: readonly A[]) => items[Math.floor(random() * items.length)]!
      const clock = makeManualClock('2030-01-01T00:00:00Z')
      const { services, close } = open()
      t.teardown(close)
      let applied = 0
      /** Runs a command, then applies the new events to every projection of their category, as the projector would. */
      const run = async <A, E>(effect: Effect.Effect<A, E, any>): Promise<A> => {
        const result = await services.run(Effect.provideService(effect, Clock, clock) as Effect.Effect<A, E, never>)
        const events = await services.run(services.events.readAll(applied, 10_000))
        for (const event of events) {
          for (const p of PROJECTIONS) if (p.categories.includes(event.stream.slice(0, event.stream.indexOf('-')))) await services.run(p.apply(event) as Effect.Effect<void, never, never>)
          applied = event.position
        }
        return result
      }
      await run(services.docs.put('orgs', { _id: ORG, org_id: ORG, name: 'p', plan: PLAN, created_at: '', ip_allowlist: [] }))
      const setPolicy = async (days: number) => run(setRetentionPolicy({
        org_id: ORG, plan: PLAN, retention_days: days, legal_hold_enabled: true, active_holds: (await run(activeHolds(ORG))).length, metadata: TEST_METADATA,
      }))
      await setPolicy(30)
      const holds: string[] = []
      const meta = { org_id: ORG, metadata: TEST_METADATA }
      const tally = { jobs: 0, holds: 0, releases: 0, shorter: 0, longer: 0, deletions: 0, sweeps: 0, purged: 0 }
      for (let step = 0; step < 70; step++) {
        const r = random()
        if (r < 0.25) {
          const id = `j${step}`
          const artifacts = [`${id}-a`, `${id}-b`]
          const now = clock.now().toISOString()
          await run(handle(jobDecider, STREAMS.job.stream(id), { _tag: 'RequestJob', origin: { _tag: 'api' }, job_id: id, org_id: ORG, api_key_id: null, spec, now }, meta))
          await run(handle(jobDecider, STREAMS.job.stream(id), { _tag: 'StartJob', job_id: id, worker_id: 'w', now }, meta))
          for (const a of artifacts) await run(services.blobs.put(`k/${a}`, new Uint8Array([1]), 'text/plain'))
          await run(handle(jobDecider, STREAMS.job.stream(id), {
            _tag: 'SucceedJob', job_id: id, manifest: {}, now,
            artifacts: artifacts.map((a) => ({ artifact_id: a, artifact_type: 'html', content_type: 'text/plain', size: 1, sha256: '', blob_key: `k/${a}`, created_at: now })),
          }, meta))
          tally.jobs++
        } else if (r < 0.4) {
          // As the API does: a hold names a job or artifact not purged yet.
          const live = (await run(findDocs(LIFECYCLE_JOBS, { purged: false }))).filter((d) => d.artifacts.every((a) => a.state === 'live'))
          if (live.length === 0) continue
          const job = pick(live)
          const kind = random()
          const scope = kind < 0.1 ? { scope_type: 'org' as const, scope_ref: ORG } : kind < 0.6 ? { scope_type: 'job' as const, scope_ref: job.job_id } : { scope_type: 'artifact' as const, scope_ref: job.artifacts[0]!.artifact_id }
          holds.push((await run(placeHold({ org_id: ORG, plan: PLAN, ...scope, scope_found: true, justification: 'x', metadata: TEST_METADATA }))).hold_id)
          tally.holds++
        } else if (r < 0.5 && holds.length > 0) {
          const [id] = holds.splice(Math.floor(random() * holds.length), 1)
          await run(releaseHold({ org_id: ORG, hold_id: id!, justification: 'done', metadata: TEST_METADATA }))
          tally.releases++
        } else if (r < 0.58) {
          const before = (await run(effectivePolicy(ORG, PLAN))).retention_days
          const days = pick(RETENTION_CHOICES)
          await setPolicy(days)
          if (days < before) tally.shorter++
          if (days > before) tally.longer++
        } else if (r < 0.63) {
          // As the API does: only a finished job no hold covers.
          const held = await run(activeHolds(ORG))
          const deletable = (await run(findDocs(LIFECYCLE_JOBS, { purged: false, deletion_requested: false }))).filter((d) => !isHeld(coverage(held, d)))
          if (deletable.length === 0) continue
          await run(requestJobDeletion({ org_id: ORG, job_id: pick(deletable).job_id, metadata: TEST_METADATA }))
          tally.deletions++
        } else if (r < 0.83) {
          clock.advance(Math.floor(random() * 20) * DAY)
        } else {
          const now = clock.now()
          const held = await run(activeHolds(ORG))
          const { retention_days } = await run(effectivePolicy(ORG, PLAN))
          const before = await run(findDocs(LIFECYCLE_JOBS, {}))
          const liveBefore = new Set(before.flatMap((d) => [...(d.purged ? [] : [d.job_id]), ...d.artifacts.filter((a) => a.state === 'live').map((a) => a.artifact_id)]))
          await run(sweep(purgeWork, { now, batchSize: 1000, dryRun: false, log: () => {} }))
          tally.sweeps++
          const cutoff = retentionCutoff(now, retention_days)
          for (const doc of await run(findDocs(LIFECYCLE_JOBS, {}))) {
            const c = coverage(held, doc)
            const due = doc.created_at <= cutoff || doc.deletion_requested
            for (const a of doc.artifacts) {
              if (!liveBefore.has(a.artifact_id)) continue
              const exists = (await run(Effect.either(services.blobs.get(a.blob_key))))._tag === 'Right'
              if (c.whole_job || c.artifacts.has(a.artifact_id)) t.ok(exists && a.state === 'live', `held ${a.artifact_id} kept`)
              else if (due) t.ok(!exists && a.state === 'deleted', `due unheld ${a.artifact_id} purged with its blob (${retention_days} days)`)
              else t.ok(exists && a.state === 'live', `${a.artifact_id}, not due under ${retention_days} days, kept`)
            }
            if (!liveBefore.has(doc.job_id)) continue
            if (due && !isHeld(c)) {
              t.ok(doc.purged, `due unheld ${doc.job_id} purged (${retention_days} days)`)
              if (doc.purged) tally.purged++
            } else t.notOk(doc.purged, `${doc.job_id} kept: ${isHeld(c) ? 'held' : `not due under ${retention_days} days`}`)
          }
        }
      }
      // A history that never shortened, lengthened or purged would prove little: these seeds were chosen to do all.
      t.ok(tally.shorter > 0 && tally.longer > 0 && tally.purged > 0 && tally.holds > 0 && tally.releases > 0, `the history exercised everything: ${JSON.stringify(tally)}`)
    })
  }
}
