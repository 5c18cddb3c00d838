/**
 * Jobs this API process admitted that the usage counters may not show yet. Admission adds them to what the counters
 * say, so it never has to wait for the projection; a reservation is dropped once the organization's counters have
 * seen its log position.
 */
export interface Reservation {
  readonly position: number
  readonly keyId: string
  readonly weight: number
  readonly day: string
}

export const makeReservations = () => {
  const byOrg = new Map<string, Reservation[]>()
  return {
    /** The reservations still unseen by counters that reflect the log up to `countersPosition`. */
    pending: (orgId: string, countersPosition: number): readonly Reservation[] => {
      const open = (byOrg.get(orgId) ?? []).filter((r) => r.position > countersPosition)
      if (open.length > 0) byOrg.set(orgId, open)
      else byOrg.delete(orgId)
      return open
    },
    add: (orgId: string, reservation: Reservation) => {
      byOrg.set(orgId, [...(byOrg.get(orgId) ?? []), reservation])
    },
  }
}
export type Reservations = ReturnType<typeof makeReservations>
