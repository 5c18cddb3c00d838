/**
 * Requests per key in the current window (fixed, one minute unless told), counted in this API process.
 * With several API processes each counts its own share; see README "Limits".
 */
export const makeRateWindow = (windowMs = 60_000) => {
  const counts = new Map<string, { window: number; count: number }>()
  return {
    /** Counts the request, made at `at` (ms, on the process's Clock), and answers how many came before it in its window. */
    hit: (key: string, at: number): number => {
      const window = Math.floor(at / windowMs)
      const entry = counts.get(key)
      if (!entry || entry.window !== window) {
        if (counts.size > 100_000) counts.clear()
        counts.set(key, { window, count: 1 })
        return 0
      }
      entry.count += 1
      return entry.count - 1
    },
    /** When the window holding `at` ends. */
    windowEnd: (at: number): number => (Math.floor(at / windowMs) + 1) * windowMs,
  }
}
export type RateWindow = ReturnType<typeof makeRateWindow>
