import { Effect, Layer } from 'effect'
import { dayOf, type UsageSnapshot } from '../../domain/limits.js'
import { DocumentStore } from '../../ports/document-store.js'
import type { StoreUnavailable } from '../../ports/event-store.js'
import { Usage, type AdmittedJob, type UsageReading } from '../../ports/usage.js'
import { admissionUsageIn, admissionUsageNow } from '../../projections/usage-queries.js'
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
  const readingOf = (orgId: string, keyId: string | null, now: Date, counted: ReturnType<typeof admissionUsageNow>): UsageReading => ({
    orgId, keyId, now, jobsToday: counted.jobsToday, activeJobsOrg: counted.activeJobsOrg, activeJobsKey: counted.activeJobsKey,
    creditsCommitted: counted.creditsUsed + counted.creditsReserved, orgPosition: counted.orgPosition,
  })
  const readCounters = (orgId: string, keyId: string | null, now: Date): Effect.Effect<UsageReading, StoreUnavailable> =>
    Effect.map(admissionUsageIn(documents, orgId, keyId, now), (counted) => readingOf(orgId, keyId, now, counted))
  /** The usage a reading no older than any an earlier admission of the organization used shows, with this process's admissions it has not counted. */
  const usageOf = (reading: UsageReading): UsageSnapshot => {
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
  }
  const shared = makeSingleFlight<UsageReading, StoreUnavailable>()
  const getNow = documents.getNow
  return {
    serialized,
    // A store that answers synchronously never has two reads in flight to share.
    read: (orgId, keyId, now) => documents.atomicBatches ? readCounters(orgId, keyId, now) : shared(`${orgId}\n${keyId ?? ''}\n${dayOf(now.toISOString())}`, readCounters(orgId, keyId, now)),
    snapshot: (given) => Effect.suspend(() => Effect.map(given.orgPosition < (usedPosition.get(given.orgId) ?? 0) ? readCounters(given.orgId, given.keyId, given.now) : Effect.succeed(given), usageOf)),
    admitted: (job) => Effect.sync(() => reservations.add(job)),
    // Counters read now are never older than the ones an earlier admission used (positions only grow in the store).
    ...(getNow ? {
      snapshotNow: (orgId: string, keyId: string | null, now: Date) =>
        serialized.isHeld(orgId) ? undefined : usageOf(readingOf(orgId, keyId, now, admissionUsageNow(getNow, orgId, keyId, now))),
      admittedNow: (job: AdmittedJob) => reservations.add(job),
    } : {}),
  }
}))
