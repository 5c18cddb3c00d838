import { Effect, Layer } from 'effect'
import { dayOf } from '../../domain/limits.js'
import { DocumentStore } from '../../ports/document-store.js'
import { Usage } from '../../ports/usage.js'
import { admissionUsage } from '../../projections/usage-queries.js'
import { makeKeyedLock } from './keyed-lock.js'
import { makeReservations } from './reservations.js'

/** Usage read from the credits projection's counters, plus this process's admissions they have not seen yet. */
export const UsageFromCounters = Layer.effect(Usage, Effect.gen(function* () {
  const documents = yield* DocumentStore
  const reservations = makeReservations()
  const serialized = makeKeyedLock()
  return {
    serialized,
    snapshot: (orgId, keyId, now) => Effect.gen(function* () {
      const counted = yield* admissionUsage(orgId, keyId, now).pipe(Effect.provideService(DocumentStore, documents))
      const unseen = reservations.pending(orgId, counted.orgPosition)
      const ofKey = unseen.filter((r) => r.keyId === keyId)
      const today = dayOf(now.toISOString())
      return {
        jobsToday: counted.jobsToday + ofKey.filter((r) => r.day === today).length,
        activeJobsOrg: counted.activeJobsOrg + unseen.length,
        activeJobsKey: counted.activeJobsKey + ofKey.length,
        creditsCommitted: counted.creditsUsed + counted.creditsReserved + unseen.reduce((sum, r) => sum + r.weight, 0),
      }
    }),
    admitted: (job) => Effect.sync(() => reservations.add(job)),
  }
}))
