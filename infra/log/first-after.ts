import type { RecordedEvent } from '../../ports/event-store.js'

/** The first index of `events` (in log order, positions increasing with gaps) past `position`. */
export const firstAfter = (events: readonly RecordedEvent[], position: number) => {
  let low = 0
  let high = events.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (events[mid]!.position <= position) low = mid + 1
    else high = mid
  }
  return low
}
