/**
 * Requests per key in the current minute, counted in this API process (a fixed one-minute window).
 * With several API processes each counts its own share; see README "Limits".
 */
export const makeRateWindow = (now: () => number = Date.now) => {
  const counts = new Map<string, { minute: number; count: number }>()
  return {
    /** Counts the request and answers how many came before it in this minute. */
    hit: (key: string): number => {
      const minute = Math.floor(now() / 60_000)
      const entry = counts.get(key)
      if (!entry || entry.minute !== minute) {
        if (counts.size > 100_000) counts.clear()
        counts.set(key, { minute, count: 1 })
        return 0
      }
      entry.count += 1
      return entry.count - 1
    },
  }
}
export type RateWindow = ReturnType<typeof makeRateWindow>
