import type { AdmittedJob } from '../../ports/usage.js'

/**
 * Jobs this process admitted that the usage counters may not show yet. Admission adds them to what the counters
 * say, so it never has to wait for the projection; a reservation is dropped once the organization's counters have
 * seen its log position.
 */
export const makeReservations = () => {
  const byOrg = new Map<string, AdmittedJob[]>()
  return {
    /** The reservations still unseen by counters that reflect the log up to `countersPosition`. */
    pending: (orgId: string, countersPosition: number): readonly AdmittedJob[] => {
      const open = (byOrg.get(orgId) ?? []).filter((r) => r.position > countersPosition)
      if (open.length > 0) byOrg.set(orgId, open)
      else byOrg.delete(orgId)
      return open
    },
    add: (job: AdmittedJob) => {
      byOrg.set(job.orgId, [...(byOrg.get(job.orgId) ?? []), job])
    },
  }
}
