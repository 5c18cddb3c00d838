/**
 * How responsive the service stayed while `work` ran: /healthz polled every 50 ms (its worst latency) and a 10 ms
 * timer watched (its worst gap). The test service runs in the test's process, so a blocked event loop shows as a
 * gap between two ticks even when no /healthz request was in flight at the time.
 */
export const responsiveWhile = async <T>(base: string, work: Promise<T>): Promise<{ value: T; worstMs: number; worstGapMs: number }> => {
  let worstMs = 0
  let worstGapMs = 0
  let last = performance.now()
  const ticks = setInterval(() => {
    const now = performance.now()
    worstGapMs = Math.max(worstGapMs, now - last)
    last = now
  }, 10)
  let done = false
  const polling = (async () => {
    while (!done) {
      const started = performance.now()
      await fetch(`${base}/healthz`)
      worstMs = Math.max(worstMs, performance.now() - started)
      await new Promise((r) => setTimeout(r, 50))
    }
  })()
  const value = await work.finally(() => { done = true; clearInterval(ticks) })
  await polling
  return { value, worstMs, worstGapMs: Math.max(worstGapMs, performance.now() - last) }
}
