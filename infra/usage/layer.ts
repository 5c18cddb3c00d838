import { Effect, Layer } from 'effect'
import { dayOf } from '../../domain/limits.js'
import { DocumentStore } from '../../ports/document-store.js'
import type { StoreUnavailable } from '../../ports/event-store.js'
import { Usage, type UsageReading } from '../../ports/usage.js'
import { admissionUsageIn } from '../../projections/usage-queries.js'
import { makeKeyedLock } from './keyed-lock.js'
import { makeReservations } from './reservations.js'
import { makeSingleFlight } from '../../projections/single-flight.js'

/** Usage read from the credits projection's counters, plus this process's admissions they have not seen yet. */
export const UsageFromCounters = Layer.effect(Usage, Effect.gen(function* () {
  const documents = yield* DocumentStore
  const reservations = makeReservations()
  const serialized = makeKeyedLock()
  // Per organization, the counters' position the last snapshot used. Positions used never go back, so a reservation
  // dropped as counted by one snapshot is counted by every later one.
  const usedPosition = new Map<string, number>()
  const readCounters = (orgId: string, keyId: string | null, now: Date): Effect.Effect<UsageReading, StoreUnavailable> =>
    admissionUsageIn(documents, orgId, keyId, now).pipe(
      Effect.map((counted) => ({
        orgId, keyId, now, jobsToday: counted.jobsToday, activeJobsOrg: counted.activeJobsOrg, activeJobsKey: counted.activeJobsKey,
        creditsCommitted: counted.creditsUsed + counted.creditsReserved, orgPosition: counted.orgPosition,
      })),
    )
  const shared = makeSingleFlight<UsageReading, StoreUnavailable>()
  return {
    serialized,
    // A store that answers synchronously never has two reads in flight to share.
    read: (orgId, keyId, now) => documents.atomicBatches ? readCounters(orgId, keyId, now) : shared(`${orgId}\n${keyId ?? ''}\n${dayOf(now.toISOString())}`, readCounters(orgId, keyId, now)),
    snapshot: (given) => Effect.suspend(() => Effect.map(given.orgPosition < (usedPosition.get(given.orgId) ?? 0) ? readCounters(given.orgId, given.keyId, given.now) : Effect.succeed(given), (reading) => {
      usedPosition.set(reading.orgId, Math.max(reading.orgPosition, usedPosition.get(reading.orgId) ?? 0))
      const unseen = reservations.pending(reading.orgId, reading.orgPosition)
      const ofKey = unseen.filter((r) => r.keyId === reading.keyId)
      const today = dayOf(reading.now.toISOString())
      return {
        jobsToday: reading.jobsToday + ofKey.filter((r) => r.day === today).length,
        activeJobsOrg: reading.activeJobsOrg + unseen.length,
        activeJobsKey: reading.activeJobsKey + ofKey.length,
        creditsCommitted: reading.creditsCommitted + unseen.reduce((sum, r) => sum + r.weight, 0),
      }
    })),
    admitted: (job) => Effect.sync(() => reservations.add(job)),
  }
}))
