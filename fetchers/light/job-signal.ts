/**
 * A job's abort signal: aborted when the fetcher stops (`stopping`) or when `timeoutMs` has passed. One controller and
 * one timer, released by `done`: AbortSignal.any and AbortSignal.timeout cost a light job more than this (the
 * combined signal keeps weak references to its sources, and a timeout signal's timer outlives the job).
 */
export const jobSignal = (stopping: AbortSignal, timeoutMs: number) => {
  const controller = new AbortController()
  let timedOut = false
  const stop = () => controller.abort(stopping.reason)
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort(new DOMException('the job timed out', 'TimeoutError'))
  }, timeoutMs)
  // Like AbortSignal.timeout's, the timer alone does not keep the process alive.
  timer.unref()
  if (stopping.aborted) stop()
  else stopping.addEventListener('abort', stop, { once: true })
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done: () => {
      clearTimeout(timer)
      stopping.removeEventListener('abort', stop)
    },
  }
}
