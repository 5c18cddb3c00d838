import { upcastJobRequested } from './job/legacy-origin.js'

type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>

/** Upcasters by event type: each turns data an earlier version wrote into the shape this version's schema reads. */
const UPCASTERS: ReadonlyMap<string, Upcaster> = new Map([['JobRequested', upcastJobRequested]])

/** Recorded data as this version reads it (the same object when nothing needs upcasting). */
export const upcast = (type: string, data: unknown): unknown => {
  const upcaster = UPCASTERS.get(type)
  return upcaster && typeof data === 'object' && data !== null && !Array.isArray(data) ? upcaster(data as Record<string, unknown>) : data
}
