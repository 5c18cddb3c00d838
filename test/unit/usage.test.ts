import t from 'tap'
import { Effect, Layer } from 'effect'
import { makeMemoryDocumentStore } from '../../infra/memory/document-store.js'
import { UsageFromCounters } from '../../infra/usage/layer.js'
import { DocumentStore } from '../../ports/document-store.js'
import { Usage } from '../../ports/usage.js'
import { orgCounterId, USAGE_COUNTERS } from '../../projections/credits.js'

const setup = () => {
  const docs = makeMemoryDocumentStore()
  const layer = Layer.provide(UsageFromCounters, Layer.succeed(DocumentStore, docs))
  return { docs, run: <A, E>(effect: Effect.Effect<A, E, Usage>) => Effect.runPromise(Effect.provide(effect, layer)) }
}
const now = new Date('2026-11-23T12:00:00Z')

t.test('jobs admitted here count until the counters have seen their position', async (t) => {
  const { docs, run } = setup()
  const snapshots = await run(Effect.gen(function* () {
    const usage = yield* Usage
    const snapshot = (orgId: string, keyId: string) => Effect.flatMap(usage.read(orgId, keyId, now), usage.snapshot)
    const before = yield* snapshot('o1', 'k1')
    yield* usage.admitted({ orgId: 'o1', keyId: 'k1', weight: 5, position: 10, day: '2026-11-23' })
    yield* usage.admitted({ orgId: 'o1', keyId: 'k2', weight: 1, position: 11, day: '2026-11-23' })
    const pending = yield* snapshot('o1', 'k1')
    // The projection catches up with the first job (position 10): it now counts it itself.
    yield* docs.put(USAGE_COUNTERS.name, { _id: orgCounterId('o1'), active_jobs: 1, reserved_credits: 5, _position: 10 })
    const caughtUp = yield* snapshot('o1', 'k1')
    const otherOrg = yield* snapshot('o2', 'k1')
    return { before, pending, caughtUp, otherOrg }
  }))
  t.same(snapshots.before, { jobsToday: 0, activeJobsOrg: 0, activeJobsKey: 0, creditsCommitted: 0 })
  t.same(snapshots.pending, { jobsToday: 1, activeJobsOrg: 2, activeJobsKey: 1, creditsCommitted: 6 })
  t.same(snapshots.caughtUp, { jobsToday: 0, activeJobsOrg: 2, activeJobsKey: 0, creditsCommitted: 6 }, 'counted once, by the counters')
  t.same(snapshots.otherOrg.activeJobsOrg, 0)
})

t.test('admissions of one organization run one at a time; other organizations do not wait', async (t) => {
  const { run } = setup()
  const order = await run(Effect.gen(function* () {
    const usage = yield* Usage
    const log: string[] = []
    const section = (name: string, orgId: string, ms: number) =>
      usage.serialized(orgId, Effect.gen(function* () { log.push(`${name}:start`); yield* Effect.sleep(ms); log.push(`${name}:end`) }))
    yield* Effect.all([section('a', 'o1', 40), section('b', 'o1', 1), section('c', 'o2', 1)], { concurrency: 'unbounded' })
    return log
  }))
  t.ok(order.indexOf('a:end') < order.indexOf('b:start'), `o1's second admission waits for the first: ${order.join(' ')}`)
  t.ok(order.indexOf('c:end') < order.indexOf('a:end'), 'another organization does not wait')
})

t.test('a reading older than one a snapshot already used is read again, so no admission is forgotten', async (t) => {
  const { docs, run } = setup()
  const used = await run(Effect.gen(function* () {
    const usage = yield* Usage
    const stale = yield* usage.read('o1', 'k1', now)
    yield* usage.admitted({ orgId: 'o1', keyId: 'k1', weight: 1, position: 10, day: '2026-11-23' })
    yield* usage.admitted({ orgId: 'o1', keyId: 'k1', weight: 1, position: 12, day: '2026-11-23' })
    // The counters catch up with position 10, and a fresher reading is used first: it drops the reservation at 10.
    yield* docs.put(USAGE_COUNTERS.name, { _id: orgCounterId('o1'), active_jobs: 1, reserved_credits: 1, _position: 10 })
    const fresh = yield* usage.snapshot(yield* usage.read('o1', 'k1', now))
    // The older reading (position 0) no longer knows of the job at 10; using it as it is would count 1 job, not 2.
    const late = yield* usage.snapshot(stale)
    return { fresh, late }
  }))
  t.equal(used.fresh.activeJobsOrg, 2)
  t.equal(used.late.activeJobsOrg, 2, 'the stale reading was replaced by a new one')
})

t.test('concurrent reads of one organization, key and day share one read of the counters', async (t) => {
  const { docs } = setup()
  let gets = 0
  const counting = { ...docs, get: ((name, id) => { gets += 1; return Effect.delay(docs.get(name, id), '20 millis') }) as typeof docs.get }
  const layer = Layer.provide(UsageFromCounters, Layer.succeed(DocumentStore, counting))
  const readings = await Effect.runPromise(Effect.provide(Effect.gen(function* () {
    const usage = yield* Usage
    return yield* Effect.all(Array.from({ length: 10 }, () => usage.read('o1', 'k1', now)), { concurrency: 'unbounded' })
  }), layer))
  t.equal(readings.length, 10)
  t.equal(gets, 4, 'one read (four counter documents) for ten admissions')
})

t.test('snapshotNow counts as snapshot does, and steps aside while an admission of the organization runs through the effects', async (t) => {
  const { docs, run } = setup()
  const seen = await run(Effect.gen(function* () {
    const usage = yield* Usage
    const before = usage.snapshotNow!('o1', 'k1', now)
    usage.admittedNow!({ orgId: 'o1', keyId: 'k1', weight: 5, position: 10, day: '2026-11-23' })
    yield* usage.admitted({ orgId: 'o1', keyId: 'k2', weight: 1, position: 11, day: '2026-11-23' })
    const pending = usage.snapshotNow!('o1', 'k1', now)
    const viaEffects = yield* Effect.flatMap(usage.read('o1', 'k1', now), usage.snapshot)
    yield* docs.put(USAGE_COUNTERS.name, { _id: orgCounterId('o1'), active_jobs: 1, reserved_credits: 5, _position: 10 })
    const caughtUp = usage.snapshotNow!('o1', 'k1', now)
    const duringEffects = yield* usage.serialized('o1', Effect.sync(() => ({ o1: usage.snapshotNow!('o1', 'k1', now), o2: usage.snapshotNow!('o2', 'k1', now) })))
    return { before, pending, viaEffects, caughtUp, duringEffects, after: usage.snapshotNow!('o1', 'k1', now) }
  }))
  t.same(seen.before, { jobsToday: 0, activeJobsOrg: 0, activeJobsKey: 0, creditsCommitted: 0 })
  t.same(seen.pending, { jobsToday: 1, activeJobsOrg: 2, activeJobsKey: 1, creditsCommitted: 6 })
  t.same(seen.viaEffects, seen.pending, 'the same as the effects answer')
  t.same(seen.caughtUp, { jobsToday: 0, activeJobsOrg: 2, activeJobsKey: 0, creditsCommitted: 6 }, 'counted once, by the counters')
  t.equal(seen.duringEffects.o1, undefined, 'undefined while the organization is serialized')
  t.ok(seen.duringEffects.o2 !== undefined, 'another organization is not held')
  t.same(seen.after, seen.caughtUp, 'answered again once the lock is released')
})
