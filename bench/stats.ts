/** Percentile of a sample (nearest rank). */
export const percentile = (values: readonly number[], p: number): number => {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

/** Runs `task` for indices 0..n-1 with at most `concurrency` in flight. */
export const pool = async (n: number, concurrency: number, task: (i: number) => Promise<void>) => {
  let next = 0
  await Promise.all(Array.from({ length: Math.min(n, concurrency) }, async () => {
    while (next < n) await task(next++)
  }))
}

export const fmt = (n: number, digits = 1) => n.toFixed(digits)
